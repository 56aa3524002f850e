import { Paper, Tabs } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { DomainListPanel } from '../../components/domainList/DomainListPanel.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useCustomerId } from '../../session/context.ts';
import { DefaultPolicyPanels } from './DefaultPolicyPanels.tsx';
import { useDefaultPolicyQuery } from './defaultApi.ts';

const BASE = '/customer/settings/default_policy';

/** The allowed and blocked domains of the customer's default policy (a real policy with an id). */
function DefaultPolicyDomains({ customerId }: { customerId: number }) {
  const policy = useDefaultPolicyQuery({ user_id: customerId });
  return (
    <Paper withBorder p="md" radius="md">
      {policy.data ? (
        <DomainListPanel owner={{ kind: 'policy', policyId: policy.data.id, userId: customerId }} area="customer" />
      ) : (
        <QueryState query={policy}>{() => null}</QueryState>
      )}
    </Paper>
  );
}

/**
 * `/customer/settings/default_policy` (spec §2 "Customer default policy"): the customer's default
 * policy, used by every location without a policy of its own. "Policy Details" (the policy form and
 * categories) at the base path and "Allowed & Blocked Domains" at `/domains`, each tab its own URL.
 */
export function DefaultPolicyPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const navigate = useNavigate();
  const tab = useLocation().pathname.endsWith('/domains') ? 'domains' : 'details';
  return (
    <>
      <PageHeader />
      <Tabs value={tab} onChange={(v) => navigate(v === 'domains' ? `${BASE}/domains` : BASE)} keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="details">{t('defaultPolicy.detailsTab')}</Tabs.Tab>
          <Tabs.Tab value="domains">{t('defaultPolicy.domainsTab')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="details">
          <DefaultPolicyPanels owner={{ user_id: customerId }} template={false} />
        </Tabs.Panel>
        <Tabs.Panel value="domains">
          <DefaultPolicyDomains customerId={customerId} />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
