import { DECISIONS } from '../decisions.ts';
import type { Rule } from '../types.ts';

/** Step 4, the MSP's global allow list → `allowed`/`msp_allow`. No MSP lists at all: passes at once. */
export const mspAllowRule: Rule = {
  name: 'msp-allow',
  decide(snapshot, identity, qname) {
    const lists = snapshot.mspLists;
    if (lists.size === 0) return null;
    const list = lists.get(identity.mspId)?.allow;
    return list !== undefined && list.lookup(qname) !== undefined ? DECISIONS.mspAllow : null;
  },
};
