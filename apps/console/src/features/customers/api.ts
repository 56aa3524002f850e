import { Endpoints, type ListQuery } from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { deleteItems, useBatchMutation } from '../../api/batch.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';

/** The customer list's sort keys (spec-notes §9 sort). */
export type CustomerSortKey = 'name' | 'timezone' | 'created_at';

/** `GET /users/?msp_id=` (spec-notes §7 Customers): one page of the MSP's customers, sorted and filtered (spec-notes §9). */
export function useCustomersQuery(mspId: number, query: ListQuery) {
  return useEndpointQuery(
    Endpoints.customers.list,
    { query: { ...query, msp_id: mspId } },
    { placeholderData: keepPreviousData },
  );
}

/** `GET /users/{id}` (spec-notes §7 Customers): one customer. */
export function useCustomerQuery(id: number) {
  return useEndpointQuery(Endpoints.customers.get, { params: { id } });
}

/** `GET /msp/{id}` (spec-notes §7 MSPs): the MSP in scope, for the overview's subtitle and licence use. */
export function useMspQuery(id: number) {
  return useEndpointQuery(Endpoints.msps.get, { params: { id } });
}

/** `POST /users/` (spec-notes §7 Customers) with `customerCreateSchema`'s output; the MSP's customer count changes too. */
export function useCreateCustomerMutation() {
  return useEndpointMutation(Endpoints.customers.create, { invalidates: ['msp'] });
}

/** `POST /users/{id}` (spec-notes §7 Customers, an update): account name and time zone. */
export function useUpdateCustomerMutation(id: number) {
  return useEndpointMutation(Endpoints.customers.update, { params: { id } });
}

/** `DELETE /users/{id}` (spec-notes §7 Customers): the customer and everything it owns. */
export function useDeleteCustomerMutation(id: number) {
  return useEndpointMutation(Endpoints.customers.remove, { params: { id }, invalidates: ['msp'] });
}

/** "Delete selected" customers as one `/batch` of `DELETE /users/{id}` (spec-notes §7 Batch). */
export function useDeleteCustomersMutation() {
  const batch = useBatchMutation({ invalidates: ['customers', 'msp'] });
  return {
    isPending: batch.isPending,
    run: (ids: readonly number[]) =>
      batch.mutateAsync(deleteItems(Endpoints.customers.remove, ids, (id) => ({ params: { id } }))),
  };
}
