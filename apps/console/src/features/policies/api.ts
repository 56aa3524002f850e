import { Endpoints, type PolicyCategory } from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { deleteItems, useBatchMutation } from '../../api/batch.ts';
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
    Endpoints.policies.list,
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
 * Deletes policies as ONE `POST /batch` of `DELETE /policies/{id}` (spec-notes §7 Batch, Policies); the
 * locations naming them fall back to the default policy, so locations go stale too.
 */
export function useDeletePoliciesMutation() {
  const batch = useBatchMutation({ invalidates: ['policies', 'locations'] });
  return {
    isPending: batch.isPending,
    run: (ids: readonly number[]) =>
      batch.mutateAsync(deleteItems(Endpoints.policies.remove, ids, (id) => ({ params: { id } }))),
  };
}

/** `GET /policies/{id}` (spec-notes §7 Policies). */
export function usePolicyQuery(id: number) {
  return useEndpointQuery(Endpoints.policies.get, { params: { id } });
}

/** `POST /policies` (spec-notes §7 Policies) with `policyCreateSchema`'s output. */
export function useCreatePolicyMutation() {
  return useEndpointMutation(Endpoints.policies.create);
}

/** `PUT /policies/{id}` (spec-notes §7). A named level resets the categories: every policy read goes stale. */
export function useUpdatePolicyMutation(id: number) {
  return useEndpointMutation(Endpoints.policies.update, { params: { id } });
}

const toScreen = (wire: PolicyCategory[]): CategoryAllowance[] => wire.map(categoryFromWire);

/** `GET /policies/{id}/categories` (spec-notes §7), read through the flip mapper (screen `allowed`). */
export function usePolicyCategoriesQuery(id: number) {
  return useEndpointQuery(Endpoints.policies.getCategories, { params: { id } }, { select: toScreen });
}

/** `PUT /policies/{id}/categories` (spec-notes §7): the screen's settings, written through the flip mapper. */
export function useUpdatePolicyCategoriesMutation(id: number) {
  return useEndpointMutation(Endpoints.policies.setCategories, {
    params: { id },
    toBody: (categories: readonly CategoryAllowance[]) => categories.map(categoryToWire),
  });
}
