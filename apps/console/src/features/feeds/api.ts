import { type DependantsResponse, type FEED_SORT_KEYS, feedEndpoints } from '@cordon/shared';
import { keepPreviousData, useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';
import { invalidateResources } from '../../api/queryKeys.ts';

/** The feed list's sort keys (docs/api.md "Category feeds"). */
export type FeedSortKey = (typeof FEED_SORT_KEYS)[number];

/** One page of the list (spec-notes §9 paging): sort and the search text ('' = none). */
export interface FeedListPage {
  limit: number;
  offset: number;
  sortkey: FeedSortKey;
  sortdir: 'asc' | 'desc';
  filter: string;
}

/** `GET /feeds`: one page of the category feed sources. */
export function useFeedsQuery(page: FeedListPage) {
  const { filter, ...rest } = page;
  return useEndpointQuery(
    feedEndpoints.list,
    { query: { ...rest, ...(filter ? { filter } : {}) } },
    { placeholderData: keepPreviousData },
  );
}

/** `POST /feeds`: a new feed source. */
export function useCreateFeedMutation() {
  return useEndpointMutation(feedEndpoints.create, {});
}

/** `PATCH /feeds/{feedId}`. */
export function useUpdateFeedMutation(feedId: number) {
  return useEndpointMutation(feedEndpoints.update, { params: { feedId } });
}

/**
 * `DELETE /feeds/{feedId}[?confirm_name=]`: the feed and the categorisations it brought. `name` (sent
 * as `confirm_name`) once typed in the dialog of a feed holding names; without it such a feed is
 * refused (409 ERR_IN_USE; docs/api.md "Deletes of things in use").
 */
export function useDeleteFeedMutation(feedId: number, name?: string) {
  return useEndpointMutation(feedEndpoints.remove, {
    params: { feedId },
    ...(name !== undefined ? { query: { confirm_name: name } } : {}),
  });
}

/** `GET /feeds/{feedId}/dependants`: the names a delete of the feed takes out of its category. */
export function useFeedDependantsFetcher(): (feedId: number) => Promise<DependantsResponse> {
  const api = useApi();
  return (feedId) => api.call(feedEndpoints.dependants, { params: { feedId } });
}

/**
 * `POST /feeds/{feedId}/run`: fetch the feed's URL now. A failed run is recorded on the feed too, so
 * the list is refreshed whatever the outcome.
 */
export function useRunFeedMutation(feedId: number) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.call(feedEndpoints.run, { params: { feedId } }),
    onSettled: () => invalidateResources(queryClient, ['feeds']),
  });
}

/** `POST /feeds/{feedId}/upload` (multipart field `file`): import a file as the feed's names. */
export function useUploadFeedMutation(feedId: number) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.set('file', file, file.name);
      return api.call(feedEndpoints.upload, { params: { feedId }, form });
    },
    onSettled: () => invalidateResources(queryClient, ['feeds']),
  });
}
