import { Dashboard } from '../../components/dashboard/Dashboard.tsx';
import { PageHeader, usePageSubtitle } from '../../components/PageHeader.tsx';
import { useCustomerId } from '../../session/context.ts';
import { useCustomerQuery } from './api.ts';

/** `/customer/overview` (spec-notes §2): the customer's traffic dashboard (spec-notes §3 "Stats", §9 dashboard defaults). */
export function CustomerOverviewPage() {
  const customerId = useCustomerId();
  const customer = useCustomerQuery(customerId);
  usePageSubtitle(customer.data?.accountName);
  return (
    <>
      <PageHeader />
      <Dashboard owner={{ kind: 'customer', id: customerId }} />
    </>
  );
}
