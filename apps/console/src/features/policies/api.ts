import { Endpoints, type PolicyCategory } from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';
import { type CategoryAllowance, categoryFromWire, categoryToWire } from './categoryMapper.ts';

/** One page of the policy list (spec §7): paging and whether the default policy is included. */
export interface PolicyListPage {
  limit: number;
  offset: number;
  show_default: boolean;
}

/** `GET /policies?user_id=…` (spec §7 Policies): the customer's policies sorted by name. */
export function usePoliciesQuery(customerId: number, page: PolicyListPage) {
  return useEndpointQuery(
    Endpoints.policies.list,
    {
      query: {
        user_id: customerId,
        limit: page.limit,
        offset: page.offset,
        sortkey: 'name',
        sortdir: 'asc',
        show_default: page.show_default ? 'true' : 'false',
      },
    },
    { placeholderData: keepPreviousData },
  );
}

/** `GET /policies/{id}` (spec §7 Policies). */
export function usePolicyQuery(id: number) {
  return useEndpointQuery(Endpoints.policies.get, { params: { id } });
}

/** `POST /policies` (spec §7 Policies) with `policyCreateSchema`'s output. */
export function useCreatePolicyMutation() {
  return useEndpointMutation(Endpoints.policies.create);
}

/** `PUT /policies/{id}` (spec §7). A named level resets the categories: every policy read goes stale. */
export function useUpdatePolicyMutation(id: number) {
  return useEndpointMutation(Endpoints.policies.update, { params: { id } });
}

const toScreen = (wire: PolicyCategory[]): CategoryAllowance[] => wire.map(categoryFromWire);

/** `GET /policies/{id}/categories` (spec §7), read through the flip mapper (screen `allowed`). */
export function usePolicyCategoriesQuery(id: number) {
  return useEndpointQuery(Endpoints.policies.getCategories, { params: { id } }, { select: toScreen });
}

/** `PUT /policies/{id}/categories` (spec §7): the screen's settings, written through the flip mapper. */
export function useUpdatePolicyCategoriesMutation(id: number) {
  return useEndpointMutation(Endpoints.policies.setCategories, {
    params: { id },
    toBody: (categories: readonly CategoryAllowance[]) => categories.map(categoryToWire),
  });
}
