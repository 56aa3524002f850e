import { type TestCategoryResult, testCategoryBodySchema } from '@cordon/shared';
import { Badge, Button, Group, Paper, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCategoryName } from '../../components/categoryName.ts';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { useCustomerPoliciesQuery, useMspCustomersQuery, useTestCategoryMutation } from './api.ts';

interface TestValues {
  domain: string;
  customer: string | null;
  policy: string | null;
}

const prepare = (v: TestValues) => ({
  domain: v.domain,
  ...(v.customer ? { user_id: Number(v.customer) } : {}),
  ...(v.policy ? { policy_id: Number(v.policy) } : {}),
});

/** The answer: the name, its categories, the policy and the decision with the step that made it. */
export function ResultView({ result }: { result: TestCategoryResult }) {
  const { t } = useTranslation();
  const categoryName = useCategoryName();
  return (
    <Paper withBorder p="md" radius="md" data-testid="test-category-result" aria-live="polite">
      <Table variant="vertical" layout="fixed" withRowBorders={false}>
        <Table.Tbody>
          <Table.Tr>
            <Table.Th w={160}>{t('tools.domain')}</Table.Th>
            <Table.Td style={{ wordBreak: 'break-all' }}>{result.domain}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>{t('tools.categories')}</Table.Th>
            <Table.Td>
              {result.categories.length === 0 ? (
                <Text size="sm">{t('tools.unclassified')}</Text>
              ) : (
                <Group gap={6}>
                  {result.categories.map((c) => (
                    <Badge key={c.id} variant="outline" color="gray" data-category-id={c.id}>
                      {categoryName(c.id, c.name)}
                    </Badge>
                  ))}
                </Group>
              )}
            </Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>{t('tools.policy')}</Table.Th>
            <Table.Td>{result.policy ? result.policy.name : t('tools.noPolicy')}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>{t('tools.decision')}</Table.Th>
            <Table.Td>
              <Group gap="xs">
                <StatusBadge status={result.action === 'blocked' ? 'blocked' : 'allowed'} />
                <Text size="sm" data-testid="test-category-reason">
                  {t(`tools.reasons.${result.reason}`)}
                  {result.forward_to ? ` → ${result.forward_to}` : ''}
                </Text>
              </Group>
            </Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
    </Paper>
  );
}

/**
 * Test categorisation (spec-notes §2 "tools", §7 `POST /tools/test/category`): a domain, and in the
 * customer area the policy to decide under (its default first); at MSP level a customer of the MSP
 * (its default policy); at system level with no MSP in scope, the categories only. The answer comes
 * from the resolver's own policy engine, so it matches what `dig` gets.
 */
export function TestCategoryPanel({ customerId, mspId }: { customerId: number | null; mspId: number | null }) {
  const { t } = useTranslation();
  const test = useTestCategoryMutation();
  const [result, setResult] = useState<TestCategoryResult | null>(null);
  const form = useForm<TestValues>({
    initialValues: { domain: '', customer: customerId === null ? null : String(customerId), policy: null },
    validate: schemaValidator(testCategoryBodySchema, prepare),
  });
  const policies = useCustomerPoliciesQuery(customerId);
  const customers = useMspCustomersQuery(customerId === null ? mspId : null);
  const submit = form.onSubmit((values) => {
    test.mutate(testCategoryBodySchema.parse(prepare(values)), {
      onSuccess: setResult,
      onError: (error) => applyServerErrors(form, error),
    });
  });
  return (
    <Stack maw={720}>
      <Paper withBorder p="md" radius="md">
        <form onSubmit={submit} noValidate>
          <Stack>
            <Text size="sm" c="dimmed">
              {t('tools.testIntro')}
            </Text>
            <TextInput
              label={t('tools.domain')}
              placeholder="example.com"
              required
              data-autofocus
              {...form.getInputProps('domain')}
            />
            {customerId !== null ? (
              <Select
                label={t('tools.policy')}
                placeholder={t('tools.defaultPolicy')}
                clearable
                data={(policies.data?.data ?? []).map((p) => ({ value: String(p.id), label: p.name }))}
                {...form.getInputProps('policy')}
              />
            ) : mspId !== null ? (
              <Select
                label={t('tools.customer')}
                placeholder={t('tools.selectCustomer')}
                clearable
                searchable
                data={(customers.data?.data ?? []).map((c) => ({ value: String(c.id), label: c.accountName }))}
                {...form.getInputProps('customer')}
              />
            ) : (
              <Text size="sm" c="dimmed">
                {t('tools.categoriesOnly')}
              </Text>
            )}
            <Group justify="flex-end">
              <Button type="submit" leftSection={<IconSearch size={16} aria-hidden />} loading={test.isPending}>
                {t('tools.test')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
      {result ? <ResultView result={result} /> : null}
    </Stack>
  );
}
