import { listOf, type PolicyCreate, type PolicyUpdate, policyCategoryWireSchema, policySchema } from '@cordon/shared';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import type { QueryParams } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { createdSchema } from '../../api/schemas.ts';
import { useApi } from '../../app/context.ts';
import { categoryFromWire, categoryToWire, type PolicyCategory } from './categoryMapper.ts';

const policyListSchema = listOf(policySchema);
const categoriesWireSchema = z.array(policyCategoryWireSchema);

/** Query of the policy list (spec §7): paging, sort, filter and whether to include the default policy. */
export interface PolicyListParams {
  limit: number;
  offset: number;
  sortkey?: string;
  sortdir?: 'asc' | 'desc';
  filter?: string;
  show_default?: boolean;
}

/** `GET /policies?user_id=…` (spec §7 Policies). */
export function usePoliciesQuery(userId: number, params: PolicyListParams) {
  const api = useApi();
  const query: QueryParams = { user_id: userId, sortkey: 'name', sortdir: 'asc', ...params };
  return useQuery({
    queryKey: queryKeys.policies.list(userId, query),
    queryFn: ({ signal }) => api.request('/policies', policyListSchema, { query, signal }),
    placeholderData: keepPreviousData,
  });
}

/** `GET /policies/{id}` (spec §7 Policies). */
export function usePolicyQuery(id: number) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.policies.detail(id),
    queryFn: ({ signal }) => api.request(`/policies/${id}`, policySchema, { signal }),
  });
}

/** `POST /policies` (spec §7 Policies) with `policyCreateSchema`'s output. */
export function useCreatePolicyMutation() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: PolicyCreate) => api.request('/policies', createdSchema, { method: 'POST', body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.policies.all }),
  });
}

/** `PUT /policies/{id}` (spec §7). A named level resets the categories, so those are refetched too. */
export function useUpdatePolicyMutation(id: number) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: PolicyUpdate) => api.request(`/policies/${id}`, z.unknown(), { method: 'PUT', body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.policies.all }),
  });
}

/** `GET /policies/{id}/categories` (spec §7), read through the flip mapper (screen `allowed`). */
export function usePolicyCategoriesQuery(id: number) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.policies.categories(id),
    queryFn: async ({ signal }): Promise<PolicyCategory[]> =>
      (await api.request(`/policies/${id}/categories`, categoriesWireSchema, { signal })).map(categoryFromWire),
  });
}

/** `PUT /policies/{id}/categories` (spec §7): the screen's settings, written through the flip mapper. */
export function useUpdatePolicyCategoriesMutation(id: number) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (categories: readonly PolicyCategory[]) =>
      api.request(`/policies/${id}/categories`, z.unknown(), { method: 'PUT', body: categories.map(categoryToWire) }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.policies.all }),
  });
}
