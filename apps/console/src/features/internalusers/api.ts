import { Constants, groupEndpoints, internalUserEndpoints, policyEndpoints } from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { deleteItems, useBatchMutation } from '../../api/batch.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';

/** The internal-user list's sort keys the page offers. */
export type UserSortKey = 'name' | 'last_login' | 'last_login_ip';

/** One page of the internal-user list (spec-notes §9) and the group filter (spec-notes §7 `group_id`). */
export interface UserListPage {
  limit: number;
  offset: number;
  sortkey: UserSortKey;
  sortdir: 'asc' | 'desc';
  filter: string;
  group_id?: number | undefined;
}

/** `GET /users/{id}/users/` (spec-notes §7 Groups and internal users). */
export function useUsersQuery(customerId: number, page: UserListPage) {
  return useEndpointQuery(
    internalUserEndpoints.list,
    {
      params: { id: customerId },
      query: {
        limit: page.limit,
        offset: page.offset,
        sortkey: page.sortkey,
        sortdir: page.sortdir,
        ...(page.filter ? { filter: page.filter } : {}),
        ...(page.group_id !== undefined ? { group_id: page.group_id } : {}),
      },
    },
    { placeholderData: keepPreviousData },
  );
}

/** `GET /users/{id}/users/{userId}`. */
export function useUserQuery(customerId: number, userId: number) {
  return useEndpointQuery(internalUserEndpoints.get, { params: { id: customerId, userId } });
}

/** `POST /users/{id}/users/{userId}` (spec-notes §7: policyid and description; and the groups). */
export function useUpdateUserMutation(customerId: number, userId: number) {
  return useEndpointMutation(internalUserEndpoints.update, {
    params: { id: customerId, userId },
    invalidates: ['groups'],
  });
}

/** Deletes users as ONE `POST /batch` of `DELETE /users/{id}/users/{userId}` (spec-notes §7 Batch). */
export function useDeleteUsersMutation(customerId: number) {
  const batch = useBatchMutation({ invalidates: ['internal_users', 'groups'] });
  return {
    isPending: batch.isPending,
    run: (ids: readonly number[]) =>
      batch.mutateAsync(
        deleteItems(internalUserEndpoints.remove, ids, (userId) => ({ params: { id: customerId, userId } })),
      ),
  };
}

/** Every group of the customer in rank order: the group filter and the membership choices. */
export function useGroupChoicesQuery(customerId: number) {
  return useEndpointQuery(groupEndpoints.list, {
    params: { id: customerId },
    query: { limit: Constants.groupsPageSize, offset: 0, sortkey: 'weight', sortdir: 'asc' },
  });
}

/** `GET /policies?user_id=` without the default policy: the policy choices. */
export function usePolicyChoicesQuery(customerId: number) {
  return useEndpointQuery(policyEndpoints.list, {
    query: { user_id: customerId, limit: 1000, offset: 0, sortkey: 'name', sortdir: 'asc', show_default: 'false' },
  });
}
