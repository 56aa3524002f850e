import {
  Constants,
  type DependantsResponse,
  groupEndpoints,
  internalUserEndpoints,
  policyEndpoints,
} from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { batchItem, deleteItems, useBatchMutation } from '../../api/batch.ts';
import { useApi } from '../../api/context.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';

/** The group list's sort keys the page offers. */
export type GroupSortKey = 'name' | 'weight' | 'description' | 'last_updated';

/** One page of the group list (spec-notes §9: groups default to 10000 a page). */
export interface GroupListPage {
  limit: number;
  offset: number;
  sortkey: GroupSortKey;
  sortdir: 'asc' | 'desc';
  filter: string;
}

/** `GET /users/{id}/groups` (spec-notes §7 Groups and internal users). */
export function useGroupsQuery(customerId: number, page: GroupListPage) {
  return useEndpointQuery(
    groupEndpoints.list,
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

/** Every group in rank order (`sortkey=weight`, the spec-notes §9 groups page size): the ranking page. */
export function useRankedGroupsQuery(customerId: number) {
  return useEndpointQuery(groupEndpoints.list, {
    params: { id: customerId },
    query: { limit: Constants.groupsPageSize, offset: 0, sortkey: 'weight', sortdir: 'asc' },
  });
}

/** `GET /users/{id}/groups/{groupId}`. */
export function useGroupQuery(customerId: number, groupId: number) {
  return useEndpointQuery(groupEndpoints.get, { params: { id: customerId, groupId } });
}

/** `POST /users/{id}/groups` (docs/api.md: the spec's creation path was a defect). */
export function useCreateGroupMutation(customerId: number) {
  return useEndpointMutation(groupEndpoints.create, { params: { id: customerId } });
}

/** `PUT /users/{id}/groups/{groupId}` (spec-notes §7: policyid and description). */
export function useUpdateGroupMutation(customerId: number, groupId: number) {
  return useEndpointMutation(groupEndpoints.update, {
    params: { id: customerId, groupId },
    invalidates: ['internal_users'],
  });
}

/** The value of the delete dialog's "detach" choice (the members just leave the group). */
export const DETACH = 'detach';

/**
 * Deletes groups as ONE `POST /batch` of `DELETE /users/{id}/groups/{groupId}` (spec-notes §7 Batch).
 * `moveTo` is the dialog's choice: a group id (its members join that group) or {@link DETACH}; null
 * sends neither, and a group with members is refused (docs/api.md "Deletes of things in use").
 */
export function useDeleteGroupsMutation(customerId: number) {
  const batch = useBatchMutation({ invalidates: ['groups', 'internal_users'] });
  return {
    isPending: batch.isPending,
    run: (ids: readonly number[], moveTo: string | null = null) =>
      batch.mutateAsync(
        deleteItems(groupEndpoints.remove, ids, (groupId) => ({
          params: { id: customerId, groupId },
          ...(moveTo === DETACH
            ? { query: { detach: 'true' as const } }
            : moveTo !== null
              ? { query: { move_to_group_id: Number(moveTo) } }
              : {}),
        })),
      ),
  };
}

/** `GET /users/{id}/groups/{groupId}/dependants` as a function for the delete dialog. */
export function useGroupDependantsFetcher(customerId: number): (id: number) => Promise<DependantsResponse> {
  const api = useApi();
  return (groupId) => api.call(groupEndpoints.dependants, { params: { id: customerId, groupId } });
}

/** Where the members of the groups `deleting` may go: "no group", then every other group by name. */
export function groupMoveOptions(
  groups: ReadonlyArray<{ id: number; name: string }>,
  deleting: readonly number[],
  detachLabel: string,
): Array<{ value: string; label: string }> {
  return [
    { value: DETACH, label: detachLabel },
    ...groups
      .filter((g) => !deleting.includes(g.id))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((g) => ({ value: String(g.id), label: g.name })),
  ];
}

/**
 * Saves a ranking: each group's weight is its position in `orderedIds`, starting at 1 (spec-notes §4),
 * sent as the group weight PUTs of ONE `POST /batch` (spec-notes §7 Batch).
 */
export function useSaveRankingMutation(customerId: number) {
  const batch = useBatchMutation({ invalidates: ['groups', 'internal_users'] });
  return {
    isPending: batch.isPending,
    run: (orderedIds: readonly number[]) =>
      batch.mutateAsync(
        Object.fromEntries(
          orderedIds.map((groupId, i) => [
            String(groupId),
            batchItem(groupEndpoints.update, { params: { id: customerId, groupId }, body: { weight: i + 1 } }),
          ]),
        ),
      ),
  };
}

/** `GET /users/{id}/users/?group_id=` (spec-notes §7): a group's members. */
export function useMembersQuery(customerId: number, groupId: number) {
  return useEndpointQuery(internalUserEndpoints.list, {
    params: { id: customerId },
    query: { group_id: groupId, limit: 1000, offset: 0, sortkey: 'name', sortdir: 'asc' },
  });
}

/** `GET /policies?user_id=` without the default policy: the policy choices. */
export function usePolicyChoicesQuery(customerId: number) {
  return useEndpointQuery(policyEndpoints.list, {
    query: { user_id: customerId, limit: 1000, offset: 0, sortkey: 'name', sortdir: 'asc', show_default: 'false' },
  });
}
