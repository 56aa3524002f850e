import { Paper, Tabs } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { DomainListPanel } from '../../components/domainList/DomainListPanel.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useCustomerId } from '../../session/context.ts';
import { DefaultPolicyPanels } from './DefaultPolicyPanels.tsx';
import { useDefaultPolicyQuery } from './defaultApi.ts';
import { PolicyDevicesTab, PolicyLocationsTab } from './PolicyEnvironmentTabs.tsx';
import { PolicyNotificationsTab } from './PolicyNotificationsForm.tsx';

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

/** The locations or devices tab of the default policy: what inherits it (and what names it). */
function DefaultPolicyEnvironment({ customerId, what }: { customerId: number; what: 'locations' | 'devices' }) {
  const policy = useDefaultPolicyQuery({ user_id: customerId });
  if (!policy.data) return <QueryState query={policy}>{() => null}</QueryState>;
  return what === 'locations' ? (
    <PolicyLocationsTab policyId={policy.data.id} customerId={customerId} />
  ) : (
    <PolicyDevicesTab policyId={policy.data.id} customerId={customerId} />
  );
}

/** The default policy's tabs after the details, each at its own path (spec-notes §2 "default policy with devices, domains, locations and notifications"). */
const TABS = ['domains', 'notifications', 'locations', 'devices'] as const;

/**
 * `/customer/settings/default_policy` (spec-notes §2 "Customer default policy"): the customer's default
 * policy, used by every location without a policy of its own. "Policy Details" (the policy form and
 * categories) at the base path, "Allowed & Blocked Domains" at `/domains`, "Notifications" (category
 * notifications, spec-notes §3) at `/notifications`, and the locations and
 * devices that get it at `/locations` and `/devices`, each tab its own URL.
 */
export function DefaultPolicyPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const navigate = useNavigate();
  const last = useLocation().pathname.split('/').at(-1);
  const tab = (TABS as readonly (string | undefined)[]).includes(last) ? (last as (typeof TABS)[number]) : 'details';
  return (
    <>
      <PageHeader />
      <Tabs value={tab} onChange={(v) => navigate(!v || v === 'details' ? BASE : `${BASE}/${v}`)} keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="details">{t('defaultPolicy.detailsTab')}</Tabs.Tab>
          <Tabs.Tab value="domains">{t('defaultPolicy.domainsTab')}</Tabs.Tab>
          <Tabs.Tab value="notifications">{t('notifications.tab')}</Tabs.Tab>
          <Tabs.Tab value="locations">{t('policies.locationsTab')}</Tabs.Tab>
          <Tabs.Tab value="devices">{t('policies.devicesTab')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="details">
          <DefaultPolicyPanels owner={{ user_id: customerId }} template={false} />
        </Tabs.Panel>
        <Tabs.Panel value="domains">
          <DefaultPolicyDomains customerId={customerId} />
        </Tabs.Panel>
        <Tabs.Panel value="notifications">
          <PolicyNotificationsTab owner={{ kind: 'default', userId: customerId }} />
        </Tabs.Panel>
        <Tabs.Panel value="locations">
          <DefaultPolicyEnvironment customerId={customerId} what="locations" />
        </Tabs.Panel>
        <Tabs.Panel value="devices">
          <DefaultPolicyEnvironment customerId={customerId} what="devices" />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
