import { blockedByCategory } from '../decisions.ts';
import type { Rule } from '../types.ts';

/**
 * Step 5: any category of the qname or a parent domain that the policy blocks → `blocked`/`category`
 * with every category of the name. No policy, or a name without category: passes.
 */
export const categoryRule: Rule = {
  name: 'category',
  decide(snapshot, identity, qname) {
    const policy = identity.policy;
    if (policy === null) return null;
    const categories = snapshot.categories.categoriesOf(qname);
    const blocked = policy.blocked;
    for (let i = 0; i < categories.length; i++) {
      if (blocked[categories[i]!] === 1) return blockedByCategory(categories);
    }
    return null;
  },
};
