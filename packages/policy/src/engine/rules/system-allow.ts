import { DECISIONS } from '../decisions.ts';
import type { Rule } from '../types.ts';

/** Step 4, the system's global allow list → `allowed`/`global_allow`. Empty: passes at once. */
export const systemAllowRule: Rule = {
  name: 'system-allow',
  decide(snapshot, _identity, qname) {
    const list = snapshot.systemLists.allow;
    return list.size !== 0 && list.lookup(qname) !== undefined ? DECISIONS.globalAllow : null;
  },
};
