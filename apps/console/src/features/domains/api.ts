import { policyEndpoints } from '@cordon/shared';
import { useEndpointQuery } from '../../api/hooks.ts';

/** The most policies the policy picker offers (one read; a customer has a handful). */
export const POLICY_PICKER_LIMIT = 1000;

/**
 * `GET /policies?user_id=…&show_default=true` (spec-notes §7 Policies): every policy of the customer for
 * the picker, by name, the default one included (the same generic hook the policies feature reads).
 */
export function usePolicyChoicesQuery(customerId: number) {
  return useEndpointQuery(policyEndpoints.list, {
    query: {
      user_id: customerId,
      limit: POLICY_PICKER_LIMIT,
      offset: 0,
      sortkey: 'name',
      sortdir: 'asc',
      show_default: 'true',
    },
  });
}
