import {
  type CategoryLevelUpdate,
  type DefaultPolicyQuery,
  type PolicyCategory,
  policyEndpoints,
} from '@cordon/shared';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';
import { type CategoryAllowance, categoryFromWire, categoryToWire } from './categoryMapper.ts';

/**
 * Whose default policy a page edits (spec-notes §7 "Default policy"): `{ user_id }` a customer's,
 * `{ msp_id }` an MSP's global default policy, `{}` the system's.
 */
export type DefaultPolicyOwner = DefaultPolicyQuery;

/** `GET /policies/default` (spec-notes §7 Policies) for `owner`. */
export function useDefaultPolicyQuery(owner: DefaultPolicyOwner) {
  return useEndpointQuery(policyEndpoints.getDefault, { query: owner });
}

/** `PUT /policies/default` (spec-notes §7) for `owner`; a named level resets the categories. */
export function useUpdateDefaultPolicyMutation(owner: DefaultPolicyOwner) {
  return useEndpointMutation(policyEndpoints.updateDefault, { query: owner });
}

const toScreen = (wire: PolicyCategory[]): CategoryAllowance[] => wire.map(categoryFromWire);

/** `GET /policies/default/categories` (spec-notes §7) for `owner`, through the flip mapper (screen `allowed`). */
export function useDefaultPolicyCategoriesQuery(owner: DefaultPolicyOwner) {
  return useEndpointQuery(policyEndpoints.getDefaultCategories, { query: owner }, { select: toScreen });
}

/** `POST /policies/default/categories` (spec-notes §7) for `owner`: the screen's settings through the flip mapper. */
export function useUpdateDefaultPolicyCategoriesMutation(owner: DefaultPolicyOwner) {
  return useEndpointMutation(policyEndpoints.postDefaultCategories, {
    query: owner,
    toBody: (categories: readonly CategoryAllowance[]) => categories.map(categoryToWire),
  });
}

/** `PUT /policies/default/categories/{id}` (system admins; spec-notes §4): a category's protection level. */
export function useSetCategoryLevelMutation(id: number) {
  return useEndpointMutation(policyEndpoints.setCategoryLevel, {
    params: { id },
    toBody: (body: CategoryLevelUpdate) => body,
  });
}
