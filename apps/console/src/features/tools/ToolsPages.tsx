import { Tabs } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { PageHeader } from '../../components/PageHeader.tsx';
import { useSession } from '../../session/context.ts';
import { customerScope, mspScope } from '../../session/scope.ts';
import { DnsLookupPanel } from './DnsLookupPanel.tsx';
import { RecategorizePanel } from './RecategorizePanel.tsx';
import { TestCategoryPanel } from './TestCategoryPanel.tsx';

type ToolTab = 'test' | 'recategorize' | 'dns';

/**
 * The tools' secondary navigation (spec-notes §2 "Secondary navigation": Test Categorization at `base`,
 * Recategorize Domain at `base/recategorize_domain`; at MSP and system level DNS Lookup at
 * `base/dns_lookup` too). Each tab is its own route.
 */
function ToolTabs({
  base,
  active,
  withDns,
  children,
}: {
  base: string;
  active: ToolTab;
  withDns: boolean;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Tabs
      value={active}
      onChange={(v) =>
        void navigate(v === 'recategorize' ? `${base}/recategorize_domain` : v === 'dns' ? `${base}/dns_lookup` : base)
      }
      keepMounted={false}
    >
      <Tabs.List mb="md">
        <Tabs.Tab value="test">{t('tools.testTab')}</Tabs.Tab>
        <Tabs.Tab value="recategorize">{t('tools.recategorizeTab')}</Tabs.Tab>
        {withDns ? <Tabs.Tab value="dns">{t('tools.dnsTab')}</Tabs.Tab> : null}
      </Tabs.List>
      <Tabs.Panel value={active}>{children}</Tabs.Panel>
    </Tabs>
  );
}

const CUSTOMER = '/customer/settings/tools';
const MSP = '/msp/global_settings/tools';
const SYSTEM = '/system/global_settings/tools';

/** `/customer/settings/tools` (spec-notes §2): test categorisation under one of the customer's policies. */
export function CustomerToolsPage() {
  const session = useSession();
  return (
    <>
      <PageHeader />
      <ToolTabs base={CUSTOMER} active="test" withDns={false}>
        <TestCategoryPanel customerId={customerScope(session)} mspId={null} />
      </ToolTabs>
    </>
  );
}

/** `/customer/settings/tools/recategorize_domain` (spec-notes §2): the customer's recategorisation requests. */
export function CustomerRecategorizePage() {
  return (
    <>
      <PageHeader />
      <ToolTabs base={CUSTOMER} active="recategorize" withDns={false}>
        <RecategorizePanel canReview={false} />
      </ToolTabs>
    </>
  );
}

/** `/msp/global_settings/tools` (spec-notes §2): test categorisation under a customer of the MSP. */
export function MspToolsPage() {
  const session = useSession();
  const mspId = mspScope(session);
  return (
    <>
      <PageHeader />
      <ToolTabs base={MSP} active="test" withDns>
        <TestCategoryPanel key={mspId ?? 0} customerId={null} mspId={mspId} />
      </ToolTabs>
    </>
  );
}

/** `/msp/global_settings/tools/recategorize_domain` (spec-notes §2): the MSP's and its customers' requests. */
export function MspRecategorizePage() {
  return (
    <>
      <PageHeader />
      <ToolTabs base={MSP} active="recategorize" withDns>
        <RecategorizePanel canReview={false} />
      </ToolTabs>
    </>
  );
}

/** `/system/global_settings/tools` (spec-notes §2): test categorisation; the categories only. */
export function SystemToolsPage() {
  return (
    <>
      <PageHeader />
      <ToolTabs base={SYSTEM} active="test" withDns>
        <TestCategoryPanel customerId={null} mspId={null} />
      </ToolTabs>
    </>
  );
}

/** `/system/global_settings/tools/recategorize_domain` (spec-notes §2): the review queue of every request. */
export function SystemRecategorizePage() {
  return (
    <>
      <PageHeader />
      <ToolTabs base={SYSTEM} active="recategorize" withDns>
        <RecategorizePanel canReview />
      </ToolTabs>
    </>
  );
}

/** `/msp/global_settings/tools/dns_lookup` (spec-notes §2): a name's records through Cordon's upstreams. */
export function MspDnsLookupPage() {
  return (
    <>
      <PageHeader />
      <ToolTabs base={MSP} active="dns" withDns>
        <DnsLookupPanel />
      </ToolTabs>
    </>
  );
}

/** `/system/global_settings/tools/dns_lookup` (spec-notes §2): a name's records through Cordon's upstreams. */
export function SystemDnsLookupPage() {
  return (
    <>
      <PageHeader />
      <ToolTabs base={SYSTEM} active="dns" withDns>
        <DnsLookupPanel />
      </ToolTabs>
    </>
  );
}
