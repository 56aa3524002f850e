import { Paper } from '@mantine/core';
import { DomainListPanel } from '../../components/domainList/DomainListPanel.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { useMspId } from '../../session/context.ts';

/**
 * `/msp/global_settings/global_domains` (spec-notes §2): the MSP's global allow and block lists
 * (`/global/domains/…?msp_id=`), applied to every customer of the MSP after their policies' lists
 * (docs/architecture.md "Decision order" step 4).
 */
export function MspGlobalDomainsPage() {
  const mspId = useMspId();
  return (
    <>
      <PageHeader />
      <Paper withBorder p={{ base: 'xs', sm: 'md' }} radius="md">
        <DomainListPanel owner={{ kind: 'global', mspId }} area="msp" />
      </Paper>
    </>
  );
}

/**
 * `/system/global_settings/global_domains` (spec-notes §2): the system's global allow and block lists
 * (`/global/domains/…` without an owner), applied to everyone after the MSPs' lists.
 */
export function SystemGlobalDomainsPage() {
  return (
    <>
      <PageHeader />
      <Paper withBorder p={{ base: 'xs', sm: 'md' }} radius="md">
        <DomainListPanel owner={{ kind: 'global' }} area="system" />
      </Paper>
    </>
  );
}
