import { DECISIONS } from '../decisions.ts';
import type { Rule } from '../types.ts';

/** Step 3, the policy's block list → `blocked`/`policy_block`. A policy without one passes at once. */
export const policyBlockRule: Rule = {
  name: 'policy-block',
  decide(_snapshot, identity, qname) {
    const list = identity.policy?.block ?? null;
    return list !== null && list.lookup(qname) !== undefined ? DECISIONS.policyBlock : null;
  },
};
