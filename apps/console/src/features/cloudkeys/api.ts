import { cloudKeyEndpoints } from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { deleteItems, useBatchMutation } from '../../api/batch.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';

/** The cloud-key list's sort keys the page offers (`name` sorts by the key; docs/api.md "Cloud keys"). */
export type CloudKeySortKey = 'name' | 'description' | 'times_used' | 'created_at';

/** One page of the cloud-key list (spec-notes §9): paging, sort and the search text (empty = none). */
export interface CloudKeyListPage {
  limit: number;
  offset: number;
  sortkey: CloudKeySortKey;
  sortdir: 'asc' | 'desc';
  filter: string;
}

/** `GET /users/{id}/cloudkeys` (spec-notes §7 Cloud keys). */
export function useCloudKeysQuery(customerId: number, page: CloudKeyListPage) {
  return useEndpointQuery(
    cloudKeyEndpoints.list,
    {
      params: { id: customerId },
      query: {
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

/** `GET /users/{id}/cloudkeys/{keyId}` (spec-notes §7 Cloud keys). */
export function useCloudKeyQuery(customerId: number, keyId: number) {
  return useEndpointQuery(cloudKeyEndpoints.get, { params: { id: customerId, keyId } });
}

/** `POST /users/{id}/cloudkeys` (spec-notes §7 Cloud keys) with `cloudKeyCreateSchema`'s output. */
export function useCreateCloudKeyMutation(customerId: number) {
  return useEndpointMutation(cloudKeyEndpoints.create, { params: { id: customerId } });
}

/** `POST /users/{id}/cloudkeys/{keyId}` (spec-notes §7): edits, and `reset_uses: true` for "Reset uses". */
export function useUpdateCloudKeyMutation(customerId: number, keyId: number) {
  return useEndpointMutation(cloudKeyEndpoints.update, { params: { id: customerId, keyId } });
}

/** `DELETE /users/{id}/cloudkeys/{keyId}` (docs/api.md "Cloud keys"): the key id page's delete. */
export function useDeleteCloudKeyMutation(customerId: number, keyId: number) {
  return useEndpointMutation(cloudKeyEndpoints.remove, { params: { id: customerId, keyId } });
}

/** Deletes cloud keys as ONE `POST /batch` of `DELETE /users/{id}/cloudkeys/{keyId}` (spec-notes §7 Batch). */
export function useDeleteCloudKeysMutation(customerId: number) {
  const batch = useBatchMutation({ invalidates: ['cloudkeys'] });
  return {
    isPending: batch.isPending,
    run: (ids: readonly number[]) =>
      batch.mutateAsync(deleteItems(cloudKeyEndpoints.remove, ids, (keyId) => ({ params: { id: customerId, keyId } }))),
  };
}
