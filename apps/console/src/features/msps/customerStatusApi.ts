import {
  batchEndpoints,
  CUSTOMER_STATUS_SORT_KEYS,
  type CustomerStatusSortKey,
  type DomainAction,
  Endpoints,
  type FilteringLevel,
  scheduledReportListSchema,
} from '@cordon/shared';
import { keepPreviousData, useMutation, useQueryClient } from '@tanstack/react-query';
import { batchItem, runBatch } from '../../api/batch.ts';
import type { ApiClient } from '../../api/client.ts';
import { useApi } from '../../api/context.ts';
import { useEndpointQuery } from '../../api/hooks.ts';
import { invalidateResources } from '../../api/queryKeys.ts';
import type { ListState } from '../../components/DataTable.tsx';
import type { DomainEntryInput } from '../../components/domainList/api.ts';
import { useUrlListState } from '../../components/urlListState.ts';

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
    Endpoints.stats.mspCustomers,
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
    mutationFn: ({ policyIds, level }: { policyIds: readonly number[]; level: FilteringLevel }) =>
      runBatch(
        api,
        Object.fromEntries(
          policyIds.map((id) => [
            String(id),
            batchItem(Endpoints.policies.update, { params: { id }, body: { filtering_level: level } }),
          ]),
        ),
      ),
    onSettled: () => invalidateResources(queryClient, ['policies', 'stats']),
  });
}

/** What "Send reports now" did: reports sent and failed, and customers without a scheduled report. */
export interface SendReportsOutcome {
  sent: number;
  failed: number;
  withoutReport: number;
}

/**
 * "Send reports now" for the selected customers: reads each one's scheduled reports (one `/batch`
 * of `GET /users/{id}/scheduledreports`), then runs every one of them (one `/batch` of `POST
 * …/scheduledreports/{rid}/run`; spec-notes §7: mailed now for its last full period).
 */
export function useSendReportsMutation() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (customerIds: readonly number[]): Promise<SendReportsOutcome> => {
      const lists = await api.call(batchEndpoints.run, {
        body: Object.fromEntries(
          customerIds.map((id) => [
            String(id),
            batchItem(Endpoints.reports.scheduledList, { params: { id }, query: {} }),
          ]),
        ),
      });
      const runs: Record<string, ReturnType<typeof batchItem>> = {};
      let withoutReport = 0;
      for (const id of customerIds) {
        const answer = lists[String(id)];
        const parsed = answer && answer.status === 200 ? scheduledReportListSchema.safeParse(answer.body) : null;
        const reports = parsed?.success ? parsed.data.data : [];
        if (reports.length === 0) withoutReport += 1;
        for (const r of reports) {
          runs[`${id}:${r.id}`] = batchItem(Endpoints.reports.scheduledRun, { params: { id, rid: r.id } });
        }
      }
      const outcome = await runBatch(api, runs);
      return { sent: outcome.succeeded.length, failed: outcome.failed.length, withoutReport };
    },
    onSettled: () => invalidateResources(queryClient, ['reports']),
  });
}

/**
 * "Add a global entry" (issue 29): `POST /global/domains/{list}?msp_id={mspId}` (spec-notes §7
 * Domains). The API keeps one global allow and block list per MSP, not per customer, so the entry
 * applies to every customer of the MSP. `domain` must already be valid (`listDomainSchema`).
 * @throws ApiCallError when the API refuses (400 bad domain, 409 already listed)
 */
export function addGlobalEntry(api: ApiClient, mspId: number, list: DomainAction, domain: string) {
  return api.call(Endpoints.domains.globalCreate, {
    params: { action: list },
    query: { msp_id: mspId },
    body: globalEntryBody(domain),
  });
}

/** {@link addGlobalEntry} as a mutation; refreshes the domain lists. */
export function useAddGlobalEntryMutation(mspId: number) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ list, domain }: { list: DomainAction; domain: string }) => addGlobalEntry(api, mspId, list, domain),
    onSuccess: () => invalidateResources(queryClient, ['domains']),
  });
}

/**
 * "Enforce 2FA" (issue 29): `PUT /auth/msp/{mspId}/two-factor-auth/enforce` with `{ enforce: true }`
 * (spec-notes §7 Auth). The API has no per-customer switch: this covers the MSP's admins and its
 * customers' admins; those without 2FA are sent to set it up at their next login.
 * @throws ApiCallError when the API refuses (403 foreign MSP)
 */
export function enforceTwoFactor(api: ApiClient, mspId: number) {
  return api.call(Endpoints.auth.enforceSet, { params: { id: mspId }, body: { enforce: true } });
}

/**
 * The body of a global entry added from the customer list (issue 29 "add a global entry"): the
 * domain as typed (already valid), subdomains included and requests logged, as the API defaults them
 * (spec-notes §7 Domains), no comment (stored data stays language-neutral).
 */
export function globalEntryBody(domain: string): DomainEntryInput {
  return { domain, include_subdomains: true, comment: '', log_requests: true };
}
