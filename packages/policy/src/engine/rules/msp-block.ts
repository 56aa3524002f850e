import { DECISIONS } from '../decisions.ts';
import type { Rule } from '../types.ts';

/** Step 4, the MSP's global block list → `blocked`/`msp_block`. No MSP lists at all: passes at once. */
export const mspBlockRule: Rule = {
  name: 'msp-block',
  decide(snapshot, identity, qname) {
    const lists = snapshot.mspLists;
    if (lists.size === 0) return null;
    const list = lists.get(identity.mspId)?.block;
    return list !== undefined && list.lookup(qname) !== undefined ? DECISIONS.mspBlock : null;
  },
};
