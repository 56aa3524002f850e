import { DECISIONS } from '../decisions.ts';
import type { Rule } from '../types.ts';

/** Step 4, the system's global block list → `blocked`/`global_block`. Empty: passes at once. */
export const systemBlockRule: Rule = {
  name: 'system-block',
  decide(snapshot, _identity, qname) {
    const list = snapshot.systemLists.block;
    return list.size !== 0 && list.lookup(qname) !== undefined ? DECISIONS.globalBlock : null;
  },
};
