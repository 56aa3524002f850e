import {
  authEndpoints,
  batchEndpoints,
  type DomainAction,
  domainEndpoints,
  type FilteringLevel,
  listDomainSchema,
  policyEndpoints,
  reportEndpoints,
  scheduledReportListSchema,
} from '@cordon/shared';
import { batchItem, runBatch } from '../../api/batch.ts';
import type { ApiClient } from '../../api/client.ts';
import type { DomainEntryInput } from '../../components/domainList/api.ts';

/** What "Send reports now" did: reports sent and failed, and customers without a scheduled report. */
export interface SendReportsOutcome {
  sent: number;
  failed: number;
  withoutReport: number;
}

// The MSP overview's bulk and MSP-wide actions: loaded when one runs (`loadActions` in
// customerStatusApi.ts), since their endpoints, schemas and the domain parser are not needed to show
// the customer list (bench/README.md "Console first load").

/**
 * Gives each default policy of `policyIds` the protection level `level` (`PUT /policies/{id}`, a
 * named level resets its categories; spec-notes §7 Policies), as one `/batch`.
 * @returns the batch outcome, keyed by policy id
 */
export function applyLevel(api: ApiClient, policyIds: readonly number[], level: FilteringLevel) {
  return runBatch(
    api,
    Object.fromEntries(
      policyIds.map((id) => [
        String(id),
        batchItem(policyEndpoints.update, { params: { id }, body: { filtering_level: level } }),
      ]),
    ),
  );
}

/**
 * Runs every scheduled report of `customerIds` now: reads each one's scheduled reports (one `/batch`
 * of `GET /users/{id}/scheduledreports`), then runs them all (one `/batch` of `POST
 * …/scheduledreports/{rid}/run`; spec-notes §7: mailed now for its last full period).
 */
export async function sendReports(api: ApiClient, customerIds: readonly number[]): Promise<SendReportsOutcome> {
  const lists = await api.call(batchEndpoints.run, {
    body: Object.fromEntries(
      customerIds.map((id) => [String(id), batchItem(reportEndpoints.scheduledList, { params: { id }, query: {} })]),
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
      runs[`${id}:${r.id}`] = batchItem(reportEndpoints.scheduledRun, { params: { id, rid: r.id } });
    }
  }
  const outcome = await runBatch(api, runs);
  return { sent: outcome.succeeded.length, failed: outcome.failed.length, withoutReport };
}

/**
 * "Add a global entry" (issue 29): `POST /global/domains/{list}?msp_id={mspId}` (spec-notes §7
 * Domains). The API keeps one global allow and block list per MSP, not per customer, so the entry
 * applies to every customer of the MSP. `domain` must already be valid (`listDomainSchema`).
 * @throws ApiCallError when the API refuses (400 bad domain, 409 already listed)
 */
export function addGlobalEntry(api: ApiClient, mspId: number, list: DomainAction, domain: string) {
  return api.call(domainEndpoints.globalCreate, {
    params: { action: list },
    query: { msp_id: mspId },
    body: globalEntryBody(domain),
  });
}

/**
 * "Enforce 2FA" (issue 29): `PUT /auth/msp/{mspId}/two-factor-auth/enforce` with `{ enforce: true }`
 * (spec-notes §7 Auth). The API has no per-customer switch: this covers the MSP's admins and its
 * customers' admins; those without 2FA are sent to set it up at their next login.
 * @throws ApiCallError when the API refuses (403 foreign MSP)
 */
export function enforceTwoFactor(api: ApiClient, mspId: number) {
  return api.call(authEndpoints.enforceSet, { params: { id: mspId }, body: { enforce: true } });
}

/**
 * The domain of a global entry as typed, trimmed and checked (`listDomainSchema`, the API's rule).
 * @returns the domain, or null when the API would refuse it
 */
export function parseGlobalEntryDomain(typed: string): string | null {
  const parsed = listDomainSchema.safeParse(typed.trim());
  return parsed.success ? parsed.data : null;
}

/**
 * The body of a global entry added from the customer list (issue 29 "add a global entry"): the
 * domain as typed (already valid), subdomains included and requests logged, as the API defaults them
 * (spec-notes §7 Domains), no comment (stored data stays language-neutral).
 */
export function globalEntryBody(domain: string): DomainEntryInput {
  return { domain, include_subdomains: true, comment: '', log_requests: true };
}
