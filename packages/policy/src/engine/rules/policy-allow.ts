import { DECISIONS } from '../decisions.ts';
import type { Rule } from '../types.ts';

/** Step 3, the policy's allow list → `allowed`/`policy_allow`. A policy without one passes at once. */
export const policyAllowRule: Rule = {
  name: 'policy-allow',
  decide(_snapshot, identity, qname) {
    const list = identity.policy?.allow ?? null;
    return list !== null && list.lookup(qname) !== undefined ? DECISIONS.policyAllow : null;
  },
};
