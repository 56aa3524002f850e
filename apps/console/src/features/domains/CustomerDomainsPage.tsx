import { Paper, Select, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { DomainListPanel } from '../../components/domainList/DomainListPanel.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useCustomerId } from '../../session/context.ts';
import { usePolicyChoicesQuery } from './api.ts';
import { choosePolicy } from './policyChoice.ts';

/**
 * `/customer/content_filtering/domains` (spec-notes §2 "domains"): the allow and block lists of one of the
 * customer's policies, chosen in a picker (the default policy preselected; the choice is kept in the
 * URL as `?policy=`), shown by the shared list view.
 */
export function CustomerDomainsPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const policies = usePolicyChoicesQuery(customerId);
  const [params, setParams] = useSearchParams();
  return (
    <>
      <PageHeader />
      <QueryState query={policies}>
        {(list) => {
          const chosen = choosePolicy(list.data, params.get('policy'));
          if (chosen === null) return <Text c="dimmed">{t('domains.noPolicies')}</Text>;
          return (
            <Stack>
              <Select
                label={t('domains.policy')}
                w={{ base: '100%', sm: 320 }}
                searchable
                allowDeselect={false}
                value={String(chosen.id)}
                data={list.data.map((p) => ({
                  value: String(p.id),
                  label: p.is_default && p.name !== t('common.default') ? `${p.name} (${t('common.default')})` : p.name,
                }))}
                onChange={(v) => {
                  if (v) setParams({ policy: v }, { replace: true });
                }}
              />
              <Paper withBorder p={{ base: 'xs', sm: 'md' }} radius="md">
                <DomainListPanel
                  key={chosen.id}
                  owner={{ kind: 'policy', policyId: chosen.id, userId: customerId }}
                  area="customer"
                />
              </Paper>
            </Stack>
          );
        }}
      </QueryState>
    </>
  );
}
