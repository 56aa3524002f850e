import {
  CUSTOMER_STATUS_SORT_KEYS,
  type CustomerStatusSortKey,
  type DomainAction,
  type FilteringLevel,
  statsEndpoints,
} from '@cordon/shared';
import { keepPreviousData, useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context.ts';
import { useEndpointQuery } from '../../api/hooks.ts';
import { invalidateResources } from '../../api/queryKeys.ts';
import type { ListState } from '../../components/DataTable.tsx';
import { useUrlListState } from '../../components/urlListState.ts';
import type { SendReportsOutcome } from './customerStatusActions.ts';

/** The bulk and MSP-wide actions' code, fetched when one first runs. */
export const loadActions = () => import('./customerStatusActions.ts');

/** Customers per page of the MSP overview: 100 at a glance (issue 29). */
export const CUSTOMER_STATUS_PAGE_SIZE = 100;

/** The overview list's page, sort and search, kept in the address (`page`, `sort`, `dir`, `q`). */
export function useCustomerStatusListState(): ListState<CustomerStatusSortKey> {
  return useUrlListState<CustomerStatusSortKey>(
    { key: 'name', dir: 'asc' },
    CUSTOMER_STATUS_SORT_KEYS,
    CUSTOMER_STATUS_PAGE_SIZE,
  );
}

/** `GET /msp/{id}/stats/customers` (docs/api.md "Stats"): one page of the MSP's customers with their status. */
export function useCustomerStatusQuery(mspId: number, list: ListState<CustomerStatusSortKey>) {
  const { filter, ...rest } = list.query;
  return useEndpointQuery(
    statsEndpoints.mspCustomers,
    { params: { id: mspId }, query: { ...rest, ...(filter ? { filter } : {}) } },
    { placeholderData: keepPreviousData },
  );
}

/**
 * "Apply a protection level" to the selected customers: each one's default policy gets `level`
 * (`PUT /policies/{id}`, a named level resets its categories; spec-notes §7 Policies), as one `/batch`.
 * @returns the batch outcome, keyed by policy id
 */
export function useApplyLevelMutation() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ policyIds, level }: { policyIds: readonly number[]; level: FilteringLevel }) =>
      (await loadActions()).applyLevel(api, policyIds, level),
    onSettled: () => invalidateResources(queryClient, ['policies', 'stats']),
  });
}

export type { SendReportsOutcome };

/**
 * "Send reports now" for the selected customers: reads each one's scheduled reports (one `/batch`
 * of `GET /users/{id}/scheduledreports`), then runs every one of them (one `/batch` of `POST
 * …/scheduledreports/{rid}/run`; spec-notes §7: mailed now for its last full period).
 */
export function useSendReportsMutation() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (customerIds: readonly number[]): Promise<SendReportsOutcome> =>
      (await loadActions()).sendReports(api, customerIds),
    onSettled: () => invalidateResources(queryClient, ['reports']),
  });
}

/** `addGlobalEntry` (customerStatusActions.ts) as a mutation; refreshes the domain lists. */
export function useAddGlobalEntryMutation(mspId: number) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ list, domain }: { list: DomainAction; domain: string }) =>
      (await loadActions()).addGlobalEntry(api, mspId, list, domain),
    onSuccess: () => invalidateResources(queryClient, ['domains']),
  });
}
