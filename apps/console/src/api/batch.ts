import {
  type BatchResponse,
  type BatchSubRequestInput,
  batchEndpoints,
  Constants,
  type EndpointDescriptor,
  ErrorTexts,
  fillPath,
} from '@cordon/shared';
import { type UseMutationResult, useMutation, useQueryClient } from '@tanstack/react-query';
import { type ApiClient, type EndpointInput, isApiErrorBody } from './client.ts';
import { useApi } from './context.ts';
import { invalidateResources, type ResourceTag } from './queryKeys.ts';

/**
 * One sub-request of `POST /batch` (spec-notes §7 Batch; docs/api.md "Batch") built from an endpoint
 * descriptor, so a batched call has the same path and inputs as the call sent alone:
 * `batchItem(Endpoints.policies.remove, { params: { id: 12 } })` → `{ method: 'DELETE', path: '/policies/12' }`.
 * `parameters` are the query of a GET or DELETE and the body of a POST, PUT or PATCH.
 * @throws Error when a `:name` of the path has no value in `params` (a programming error)
 */
export function batchItem<E extends EndpointDescriptor>(endpoint: E, input: EndpointInput<E>): BatchSubRequestInput {
  const raw = input as { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown };
  const path = fillPath(endpoint.path, raw.params);
  const bodyless = endpoint.method === 'GET' || endpoint.method === 'DELETE';
  const parameters = bodyless ? raw.query : raw.body;
  return { method: endpoint.method, path, ...(parameters !== undefined ? { parameters } : {}) };
}

/** One failed sub-request: its id, HTTP status and the server's error text. */
export interface BatchFailure {
  readonly id: string;
  readonly status: number;
  readonly error: string;
}

/** What a batch did: the ids that succeeded (2xx) and those that failed, in the order sent. */
export interface BatchOutcome {
  readonly succeeded: readonly string[];
  readonly failed: readonly BatchFailure[];
}

/**
 * Sorts a batch answer into successes and failures, in the order of `ids`. An id the answer lacks
 * counts as failed with status 0 (it did not run).
 */
export function batchOutcome(ids: readonly string[], response: BatchResponse): BatchOutcome {
  const succeeded: string[] = [];
  const failed: BatchFailure[] = [];
  for (const id of ids) {
    const r = response[id];
    if (r && r.status >= 200 && r.status < 300) succeeded.push(id);
    else {
      const error = r && isApiErrorBody(r.body) ? r.body.error : ErrorTexts.somethingWentWrong;
      failed.push({ id, status: r?.status ?? 0, error });
    }
  }
  return { succeeded, failed };
}

/**
 * Sends `items` as `POST /batch` calls of at most {@link Constants.batchMaxRequests} sub-requests
 * each (one call for any page of a list), one after the other, and merges the answers.
 * @throws ApiCallError when a batch call itself fails (network, 400, 401…); sub-request failures are
 *   in the answer, not thrown
 */
export async function runBatch(
  api: ApiClient,
  items: Readonly<Record<string, BatchSubRequestInput>>,
): Promise<BatchOutcome> {
  const entries = Object.entries(items);
  const merged: BatchResponse = {};
  for (let i = 0; i < entries.length; i += Constants.batchMaxRequests) {
    const chunk = Object.fromEntries(entries.slice(i, i + Constants.batchMaxRequests));
    Object.assign(merged, await api.call(batchEndpoints.run, { body: chunk }));
  }
  return batchOutcome(
    entries.map(([id]) => id),
    merged,
  );
}

/**
 * The sub-requests deleting each target through `endpoint` (a DELETE descriptor), keyed by the
 * target's id as text: `deleteItems(Endpoints.policies.remove, [3, 5], (id) => ({ params: { id } }))`.
 */
export function deleteItems<E extends EndpointDescriptor, T extends string | number>(
  endpoint: E,
  targets: readonly T[],
  input: (target: T) => EndpointInput<E>,
): Record<string, BatchSubRequestInput> {
  return Object.fromEntries(targets.map((t) => [String(t), batchItem(endpoint, input(t))]));
}

/**
 * A write of many sub-requests as one `/batch` (spec-notes §7 Batch: every multi-delete): the variables are
 * the sub-requests by id; on settling (even partly failed) the reads of `invalidates` go stale.
 */
export function useBatchMutation(options: {
  invalidates: readonly ResourceTag[];
}): UseMutationResult<BatchOutcome, Error, Readonly<Record<string, BatchSubRequestInput>>> {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (items) => runBatch(api, items),
    onSettled: () => invalidateResources(queryClient, options.invalidates),
  });
}
