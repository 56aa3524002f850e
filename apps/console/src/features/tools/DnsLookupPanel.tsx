import { dnsLookupQuerySchema } from '@cordon/shared';
import { Badge, Button, Group, Paper, Stack, Table, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconWorldSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { schemaValidator } from '../../components/form.ts';
import { QueryState } from '../../components/QueryState.tsx';
import { useDnsLookupQuery } from './api.ts';

/**
 * DNS Lookup (spec-notes §2 secondary navigation at MSP and system level; spec-notes §7 `GET /tools/dns`): a
 * name's A, AAAA, CNAME, MX and TXT records as Cordon's upstream resolvers answer them, unfiltered.
 */
export function DnsLookupPanel() {
  const { t } = useTranslation();
  const [asked, setAsked] = useState<string | null>(null);
  const lookup = useDnsLookupQuery(asked);
  const form = useForm<{ domain: string }>({
    initialValues: { domain: '' },
    validate: schemaValidator(dnsLookupQuerySchema),
  });
  const submit = form.onSubmit((values) => {
    const domain = values.domain.trim();
    if (domain === asked) void lookup.refetch();
    else setAsked(domain);
  });
  return (
    <Stack maw={720}>
      <Paper withBorder p="md" radius="md">
        <form onSubmit={submit} noValidate>
          <Stack>
            <Text size="sm" c="dimmed">
              {t('tools.dnsIntro')}
            </Text>
            <TextInput label={t('tools.domain')} placeholder="example.com" required {...form.getInputProps('domain')} />
            <Group justify="flex-end">
              <Button type="submit" leftSection={<IconWorldSearch size={16} aria-hidden />} loading={lookup.isFetching}>
                {t('tools.lookup')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
      {asked === null ? null : (
        <QueryState query={lookup}>
          {(r) => (
            <Paper withBorder p="md" radius="md" data-testid="dns-result" aria-live="polite">
              <Group gap="xs" mb="sm">
                <Text fw={600} style={{ wordBreak: 'break-all' }}>
                  {r.domain}
                </Text>
                <Badge
                  variant="light"
                  color={r.status === 'NOERROR' ? 'teal' : r.status === 'NXDOMAIN' ? 'orange' : 'red'}
                >
                  {r.status}
                </Badge>
              </Group>
              {r.records.length === 0 ? (
                <Text c="dimmed">{t('tools.noRecords')}</Text>
              ) : (
                <Table.ScrollContainer minWidth={420}>
                  <Table striped>
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th w={90}>{t('tools.recordType')}</Table.Th>
                        <Table.Th>{t('tools.recordData')}</Table.Th>
                        <Table.Th w={90}>{t('tools.ttl')}</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {r.records.map((rec, i) => (
                        // biome-ignore lint/suspicious/noArrayIndexKey: two records may be equal
                        <Table.Tr key={i}>
                          <Table.Td>{rec.type}</Table.Td>
                          <Table.Td ff="monospace" style={{ wordBreak: 'break-all' }}>
                            {rec.data}
                          </Table.Td>
                          <Table.Td>{rec.ttl ?? '—'}</Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </Table.ScrollContainer>
              )}
              <Text size="xs" c="dimmed" mt="sm">
                {r.upstreams.length > 0
                  ? t('tools.askedUpstreams', { list: r.upstreams.join(', ') })
                  : t('tools.askedHost')}
              </Text>
            </Paper>
          )}
        </QueryState>
      )}
    </Stack>
  );
}
