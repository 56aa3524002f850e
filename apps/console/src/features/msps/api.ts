import {
  customerEndpoints,
  type DependantsResponse,
  type ListQuery,
  mspEndpoints,
  statsEndpoints,
} from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { deleteItems, useBatchMutation } from '../../api/batch.ts';
import { useApi } from '../../api/context.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';

/** The MSP list's sort keys (spec-notes §9 sort; the API sorts MSPs by these). */
export type MspSortKey = 'name' | 'company_name' | 'license' | 'created_at';

/** `GET /msp` (spec-notes §7 MSPs): one page of MSPs, sorted and filtered (spec-notes §9). */
export function useMspsQuery(query: ListQuery) {
  return useEndpointQuery(mspEndpoints.list, { query }, { placeholderData: keepPreviousData });
}

/** `GET /msp/{id}` (spec-notes §7 MSPs): one MSP (system, sales, or its own admin). */
export function useMspQuery(id: number) {
  return useEndpointQuery(mspEndpoints.get, { params: { id } });
}

/** `GET /users/?msp_id=` (spec-notes §7 Customers): one page of an MSP's customers (sales: read-only). */
export function useMspCustomersQuery(mspId: number, query: ListQuery) {
  return useEndpointQuery(
    customerEndpoints.list,
    { query: { ...query, msp_id: mspId } },
    { placeholderData: keepPreviousData },
  );
}

/** `POST /msp` (spec-notes §7 MSPs) with `mspCreateSchema`'s output. */
export function useCreateMspMutation() {
  return useEndpointMutation(mspEndpoints.create);
}

/** `PUT /msp/{id}` (spec-notes §7 MSPs): name, company, licence, time zone. */
export function useUpdateMspMutation(id: number) {
  return useEndpointMutation(mspEndpoints.update, { params: { id } });
}

/**
 * "Delete selected" MSPs as one `/batch` of `DELETE /msp/{id}` (spec-notes §7 Batch; everything they
 * own goes too). Each carries its name as `confirm_name` once the dialog listing the MSPs and what
 * they own was confirmed (docs/api.md "Deletes of things in use").
 */
export function useDeleteMspsMutation() {
  const batch = useBatchMutation({ invalidates: ['msp', 'customers'] });
  return {
    isPending: batch.isPending,
    run: (items: ReadonlyArray<{ id: number; name: string }>) =>
      batch.mutateAsync(
        deleteItems(
          mspEndpoints.remove,
          items.map((m) => m.id),
          (id) => ({ params: { id }, query: { confirm_name: items.find((m) => m.id === id)?.name ?? '' } }),
        ),
      ),
  };
}

/**
 * `DELETE /msp/{id}?confirm_name=` (spec-notes §7 MSPs): the MSP and everything it owns, once its
 * name was typed in the dialog (docs/api.md "Deletes of things in use").
 */
export function useDeleteMspMutation(id: number, name: string) {
  return useEndpointMutation(mspEndpoints.remove, {
    params: { id },
    query: { confirm_name: name },
    invalidates: ['customers'],
  });
}

/** `GET /msp/{id}/dependants`: what a delete of the MSP takes with it, for the dialog. */
export function useMspDependantsFetcher(): (id: number) => Promise<DependantsResponse> {
  const api = useApi();
  return (id) => api.call(mspEndpoints.dependants, { params: { id } });
}

/** `GET /msp/{id}/stats/30days` (spec-notes §7 Stats): the MSP's totals of the last 30 days (the sales MSP page). */
export function useMspTotalsQuery(mspId: number) {
  return useEndpointQuery(statsEndpoints.mspOverview, { params: { id: mspId, date: '30days' } });
}
