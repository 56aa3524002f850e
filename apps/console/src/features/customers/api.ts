import { customerEndpoints, type DependantsResponse, type ListQuery, mspEndpoints } from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { deleteItems, useBatchMutation } from '../../api/batch.ts';
import { useApi } from '../../api/context.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';

/** The customer list's sort keys (spec-notes §9 sort). */
export type CustomerSortKey = 'name' | 'timezone' | 'created_at';

/** `GET /users/?msp_id=` (spec-notes §7 Customers): one page of the MSP's customers, sorted and filtered (spec-notes §9). */
export function useCustomersQuery(mspId: number, query: ListQuery) {
  return useEndpointQuery(
    customerEndpoints.list,
    { query: { ...query, msp_id: mspId } },
    { placeholderData: keepPreviousData },
  );
}

/** `GET /users/{id}` (spec-notes §7 Customers): one customer. */
export function useCustomerQuery(id: number) {
  return useEndpointQuery(customerEndpoints.get, { params: { id } });
}

/** `GET /msp/{id}` (spec-notes §7 MSPs): the MSP in scope, for the overview's subtitle and licence use. */
export function useMspQuery(id: number) {
  return useEndpointQuery(mspEndpoints.get, { params: { id } });
}

/** `POST /users/` (spec-notes §7 Customers) with `customerCreateSchema`'s output; the MSP's customer count changes too. */
export function useCreateCustomerMutation() {
  return useEndpointMutation(customerEndpoints.create, { invalidates: ['msp'] });
}

/** `POST /users/{id}` (spec-notes §7 Customers, an update): account name and time zone. */
export function useUpdateCustomerMutation(id: number) {
  return useEndpointMutation(customerEndpoints.update, { params: { id } });
}

/**
 * `DELETE /users/{id}?confirm_name=` (spec-notes §7 Customers): the customer and everything it owns,
 * once its name was typed in the dialog (docs/api.md "Deletes of things in use").
 */
export function useDeleteCustomerMutation(id: number, name: string) {
  return useEndpointMutation(customerEndpoints.remove, {
    params: { id },
    query: { confirm_name: name },
    invalidates: ['msp'],
  });
}

/** `GET /users/{id}/dependants`: what a delete of the customer takes with it, for the dialog. */
export function useCustomerDependantsFetcher(): (id: number) => Promise<DependantsResponse> {
  const api = useApi();
  return (id) => api.call(customerEndpoints.dependants, { params: { id } });
}

/**
 * "Delete selected" customers as one `/batch` of `DELETE /users/{id}` (spec-notes §7 Batch). Given
 * `names` (the rows' account names, shown in the confirmed dialog), each carries `confirm_name`, so
 * a customer owning things goes too; without, such a customer is refused (409 ERR_IN_USE).
 */
export function useDeleteCustomersMutation() {
  const batch = useBatchMutation({ invalidates: ['customers', 'msp'] });
  return {
    isPending: batch.isPending,
    run: (ids: readonly number[], names?: ReadonlyMap<number, string>) =>
      batch.mutateAsync(
        deleteItems(customerEndpoints.remove, ids, (id) => {
          const name = names?.get(id);
          return { params: { id }, ...(name !== undefined ? { query: { confirm_name: name } } : {}) };
        }),
      ),
  };
}
