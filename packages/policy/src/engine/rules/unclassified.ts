import { DECISIONS } from '../decisions.ts';
import type { Rule } from '../types.ts';

/**
 * Step 6: a name with no category at all, under a policy whose "allow unclassified" switch is off →
 * `blocked`/`unclassified`. Otherwise passes (the category lookup is the index's remembered last one).
 */
export const unclassifiedRule: Rule = {
  name: 'unclassified',
  decide(snapshot, identity, qname) {
    const policy = identity.policy;
    if (policy === null || policy.allowUnclassified) return null;
    return snapshot.categories.categoriesOf(qname).length === 0 ? DECISIONS.blockedUnclassified : null;
  },
};
