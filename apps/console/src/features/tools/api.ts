import { customerEndpoints, policyEndpoints, type RecategorizeListQuery, toolEndpoints } from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';

/** `POST /tools/test/category` (spec-notes §7 UI and tools): the resolver's decision for a name. */
export function useTestCategoryMutation() {
  return useEndpointMutation(toolEndpoints.testCategory);
}

/** `GET /policies?user_id=` (spec-notes §7 Policies): a customer's policies (the default first by name), to test under. */
export function useCustomerPoliciesQuery(customerId: number | null) {
  return useEndpointQuery(
    policyEndpoints.list,
    {
      query: {
        user_id: customerId ?? 0,
        show_default: 'true',
        limit: 200,
        offset: 0,
        sortkey: 'name',
        sortdir: 'asc',
      },
    },
    { enabled: customerId !== null },
  );
}

/** `GET /users/?msp_id=` (spec-notes §7 Customers): the MSP's customers, to test under one of their default policies. */
export function useMspCustomersQuery(mspId: number | null) {
  return useEndpointQuery(
    customerEndpoints.list,
    { query: { msp_id: mspId ?? 0, limit: 200, offset: 0, sortkey: 'name', sortdir: 'asc' } },
    { enabled: mspId !== null },
  );
}

/** The recategorisation list's sort keys. */
export type RecategorizeSortKey = 'created_at' | 'domain' | 'status';

/** `GET /tools/recategorize` (spec-notes §7): one page of the requests the caller sees. */
export function useRecategorizationsQuery(query: RecategorizeListQuery) {
  return useEndpointQuery(toolEndpoints.recategorizeList, { query }, { placeholderData: keepPreviousData });
}

/** `POST /tools/recategorize` (spec-notes §7): asks for a domain's recategorisation. */
export function useRequestRecategorizationMutation() {
  return useEndpointMutation(toolEndpoints.recategorize);
}

/** `POST /tools/recategorize/{id}/review` (system admin): approve or reject. */
export function useReviewRecategorizationMutation(id: number) {
  return useEndpointMutation(toolEndpoints.recategorizeReview, { params: { id } });
}

/** `GET /tools/dns?domain=` (spec-notes §7): the name's records through Cordon's upstreams; runs when `domain` is set. */
export function useDnsLookupQuery(domain: string | null) {
  return useEndpointQuery(
    toolEndpoints.dnsLookup,
    { query: { domain: domain ?? '' } },
    { enabled: domain !== null, staleTime: 0, retry: false },
  );
}
