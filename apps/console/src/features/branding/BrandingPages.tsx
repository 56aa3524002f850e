import { PageHeader } from '../../components/PageHeader.tsx';
import { useMspId } from '../../session/context.ts';
import { InterfacePanel } from './InterfacePanel.tsx';
import { SupportContacts, SupportEditPanel } from './SupportPanel.tsx';

/** `/msp/global_settings/interface` (spec-notes §2 MSP global settings): the MSP in scope's interface branding. */
export function MspInterfacePage() {
  const mspId = useMspId();
  return (
    <>
      <PageHeader />
      <InterfacePanel key={mspId} level={{ msp_id: mspId }} />
    </>
  );
}

/** `/system/global_settings/interface` (spec-notes §2 "interface"): the system's branding, every MSP's fallback. */
export function SystemInterfacePage() {
  return (
    <>
      <PageHeader />
      <InterfacePanel level={{}} />
    </>
  );
}

/** `/msp/global_settings/support` (spec-notes §2): the support contacts the MSP offers its customers. */
export function MspSupportPage() {
  const mspId = useMspId();
  return (
    <>
      <PageHeader />
      <SupportEditPanel key={mspId} level={{ msp_id: mspId }} />
    </>
  );
}

/** `/system/global_settings/support` (spec-notes §2): the system's support contacts, offered when an MSP has none. */
export function SystemSupportPage() {
  return (
    <>
      <PageHeader />
      <SupportEditPanel level={{}} />
    </>
  );
}

/** `/customer/settings/support` (spec-notes §2 customer settings "support"): who to contact. */
export function CustomerSupportPage() {
  return (
    <>
      <PageHeader />
      <SupportContacts />
    </>
  );
}
