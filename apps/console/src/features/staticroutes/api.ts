import { staticRouteEndpoints } from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';

/** The static-route list's sort keys the page offers (the API accepts `description`, `id` too). */
export type StaticRouteSortKey = 'domain' | 'resolver' | 'created_at';

/** One page of the list (spec-notes §9): paging, sort (default domain ascending) and the search text ('' = none). */
export interface StaticRouteListPage {
  limit: number;
  offset: number;
  sortkey: StaticRouteSortKey;
  sortdir: 'asc' | 'desc';
  filter: string;
}

/** `GET /staticroutes?user_id=…` (spec-notes §7): one page of the customer's static routes. */
export function useStaticRoutesQuery(customerId: number, page: StaticRouteListPage) {
  return useEndpointQuery(
    staticRouteEndpoints.list,
    {
      query: {
        user_id: customerId,
        limit: page.limit,
        offset: page.offset,
        sortkey: page.sortkey,
        sortdir: page.sortdir,
        ...(page.filter ? { filter: page.filter } : {}),
      },
    },
    { placeholderData: keepPreviousData },
  );
}

/** `POST /staticroutes?user_id=…` (spec-notes §7) with `staticRouteCreateSchema`'s output. */
export function useCreateStaticRouteMutation(customerId: number) {
  return useEndpointMutation(staticRouteEndpoints.create, { query: { user_id: customerId } });
}

/** `DELETE /staticroutes/{id}` (spec-notes §7) of route `id`. */
export function useDeleteStaticRouteMutation(id: number) {
  return useEndpointMutation(staticRouteEndpoints.remove, { params: { id } });
}
