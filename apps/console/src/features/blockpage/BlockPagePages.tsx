import { PageHeader } from '../../components/PageHeader.tsx';
import { useCustomerId, useMspId } from '../../session/context.ts';
import { BlockPagePanel } from './BlockPageForm.tsx';

/** `/customer/content_filtering/block_page` (spec-notes §2): the customer's block page (`/ui/blockpage?user_id=`). */
export function CustomerBlockPagePage() {
  const customerId = useCustomerId();
  return (
    <>
      <PageHeader />
      <BlockPagePanel owner={{ user_id: customerId }} />
    </>
  );
}

/** `/msp/global_settings/global_block_page` (spec-notes §2): the MSP's block page, its customers' fallback (`?msp_id=`). */
export function MspGlobalBlockPagePage() {
  const mspId = useMspId();
  return (
    <>
      <PageHeader />
      <BlockPagePanel owner={{ msp_id: mspId }} />
    </>
  );
}

/** `/system/global_settings/global_block_page` (spec-notes §2): the system's block page, everyone's last fallback. */
export function SystemGlobalBlockPagePage() {
  return (
    <>
      <PageHeader />
      <BlockPagePanel owner={{}} />
    </>
  );
}
