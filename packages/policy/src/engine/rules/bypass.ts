import { SECURITY_CATEGORY_IDS } from '@cordon/shared';
import { DECISIONS } from '../decisions.ts';
import type { Rule } from '../types.ts';

const SECURITY: ReadonlySet<number> = new Set(SECURITY_CATEGORY_IDS);

/**
 * Step 1, an active cloud-key bypass of this client (docs/architecture.md "Block page"; docs/architecture.md "Decision
 * order") → action `bypassed`, reason `bypass` (answered like an allowed name, logged as bypassed).
 * The bypass must belong to the client's customer and end after `now`. Names in a security category
 * (1, 5, 6, 53) are never bypassed: the rule passes and the later steps decide. No bypass at all:
 * passes at once.
 */
export const bypassRule: Rule = {
  name: 'bypass',
  decide(snapshot, identity, qname, now, clientIp) {
    const bypasses = snapshot.bypasses;
    if (bypasses.size === 0 || clientIp === undefined) return null;
    const bypass = bypasses.get(clientIp);
    if (bypass === undefined || bypass.customerId !== identity.customerId || bypass.expiresAt <= now) return null;
    const categories = snapshot.categories.categoriesOf(qname);
    for (let i = 0; i < categories.length; i++) if (SECURITY.has(categories[i]!)) return null;
    return DECISIONS.bypassed;
  },
};
