import { type HistoryQuery, historyEndpoints } from '@cordon/shared';
import { useEndpointQuery } from '../../api/hooks.ts';

/** The action filter of the history (spec-notes §7 `/users/{id}/history/{action}/{date}`). */
export type HistoryAction = 'all' | 'allowed' | 'blocked';

/** `GET /users/{id}/history/{action}/{date}` (spec-notes §7): one page of the query log; refetched every `refetchMs` when given. */
export function useHistoryQuery(
  customerId: number,
  action: HistoryAction,
  date: string,
  query: HistoryQuery,
  refetchMs?: number,
) {
  return useEndpointQuery(
    historyEndpoints.search,
    { params: { id: customerId, action, date }, query },
    { placeholderData: (prev) => prev, ...(refetchMs ? { refetchInterval: refetchMs } : {}) },
  );
}
