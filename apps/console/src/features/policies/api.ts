import { type DependantsResponse, type PolicyCategory, policyEndpoints } from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { deleteItems, useBatchMutation } from '../../api/batch.ts';
import { useApi } from '../../api/context.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';
import { type CategoryAllowance, categoryFromWire, categoryToWire } from './categoryMapper.ts';

/** The policy list's sort keys the page offers (docs/api.md "Conventions" lists all the API accepts). */
export type PolicySortKey = 'name' | 'filtering_level' | 'created_at';

/**
 * One page of the policy list (spec-notes §7, §9): paging, sort (default name ascending), the search
 * text (empty = none) and whether the default policy is included.
 */
export interface PolicyListPage {
  limit: number;
  offset: number;
  sortkey: PolicySortKey;
  sortdir: 'asc' | 'desc';
  filter: string;
  show_default: boolean;
}

/** `GET /policies?user_id=…` (spec-notes §7 Policies): one page of the customer's policies. */
export function usePoliciesQuery(customerId: number, page: PolicyListPage) {
  return useEndpointQuery(
    policyEndpoints.list,
    {
      query: {
        user_id: customerId,
        limit: page.limit,
        offset: page.offset,
        sortkey: page.sortkey,
        sortdir: page.sortdir,
        ...(page.filter ? { filter: page.filter } : {}),
        show_default: page.show_default ? 'true' : 'false',
      },
    },
    { placeholderData: keepPreviousData },
  );
}

/**
 * Deletes policies as ONE `POST /batch` of `DELETE /policies/{id}` (spec-notes §7 Batch, Policies). With
 * `moveTo`, each sends `move_to_policy_id`: the locations, groups, users and devices naming it go to
 * that policy in the same transaction (docs/api.md "Deletes of things in use"); without, a policy in
 * use is refused (409 ERR_IN_USE). Every read naming policies goes stale.
 */
export function useDeletePoliciesMutation() {
  const batch = useBatchMutation({ invalidates: ['policies', 'locations', 'groups', 'internal_users', 'devices'] });
  return {
    isPending: batch.isPending,
    run: (ids: readonly number[], moveTo: number | null = null) =>
      batch.mutateAsync(
        deleteItems(policyEndpoints.remove, ids, (id) => ({
          params: { id },
          ...(moveTo !== null ? { query: { move_to_policy_id: moveTo } } : {}),
        })),
      ),
  };
}

/** `GET /policies/{id}/dependants` as a function for the delete dialog (docs/api.md "Deletes of things in use"). */
export function usePolicyDependantsFetcher(): (id: number) => Promise<DependantsResponse> {
  const api = useApi();
  return (id) => api.call(policyEndpoints.dependants, { params: { id } });
}

/** Every policy of the customer by name (the delete dialog's move targets), default included. */
export function useAllPoliciesQuery(customerId: number) {
  return useEndpointQuery(policyEndpoints.list, {
    query: { user_id: customerId, limit: 10_000, offset: 0, sortkey: 'name', sortdir: 'asc', show_default: 'true' },
  });
}

/** `GET /policies/{id}` (spec-notes §7 Policies). */
export function usePolicyQuery(id: number) {
  return useEndpointQuery(policyEndpoints.get, { params: { id } });
}

/** `POST /policies` (spec-notes §7 Policies) with `policyCreateSchema`'s output. */
export function useCreatePolicyMutation() {
  return useEndpointMutation(policyEndpoints.create);
}

/** `PUT /policies/{id}` (spec-notes §7). A named level resets the categories: every policy read goes stale. */
export function useUpdatePolicyMutation(id: number) {
  return useEndpointMutation(policyEndpoints.update, { params: { id } });
}

const toScreen = (wire: PolicyCategory[]): CategoryAllowance[] => wire.map(categoryFromWire);

/** `GET /policies/{id}/categories` (spec-notes §7), read through the flip mapper (screen `allowed`). */
export function usePolicyCategoriesQuery(id: number) {
  return useEndpointQuery(policyEndpoints.getCategories, { params: { id } }, { select: toScreen });
}

/** `PUT /policies/{id}/categories` (spec-notes §7): the screen's settings, written through the flip mapper. */
export function useUpdatePolicyCategoriesMutation(id: number) {
  return useEndpointMutation(policyEndpoints.setCategories, {
    params: { id },
    toBody: (categories: readonly CategoryAllowance[]) => categories.map(categoryToWire),
  });
}
