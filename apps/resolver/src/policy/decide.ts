import { MAX_CATEGORY_ID } from '@cordon/shared';
import type { Decision } from '../request.ts';
import type { CategoryIndex } from './category-index.ts';

/**
 * A policy compiled for the hot path (STYLE.md §5): which categories it blocks as a flag per
 * category id, and its "allow unclassified" switch.
 */
export interface CompiledPolicy {
  readonly id: number;
  readonly customerId: number;
  /** `blocked[id] === 1` when the policy blocks category `id` (length MAX_CATEGORY_ID + 1 = 55). */
  readonly blocked: Uint8Array;
  /** DESIGN.md §8 step 6: names with no category are allowed unless this is false. */
  readonly allowUnclassified: boolean;
}

/** Compiles a policy row and its blocked category ids. Ids outside 0–54 are ignored. */
export function compilePolicy(
  id: number,
  customerId: number,
  blockedCategoryIds: Iterable<number>,
  allowUnclassified: boolean,
): CompiledPolicy {
  const blocked = new Uint8Array(MAX_CATEGORY_ID + 1);
  for (const c of blockedCategoryIds) if (c >= 0 && c <= MAX_CATEGORY_ID) blocked[c] = 1;
  return { id, customerId, blocked, allowUnclassified };
}

const ALLOW_DEFAULT_EMPTY: Decision = Object.freeze({ action: 'allowed', reason: 'default', categories: [] });
const BLOCK_UNCLASSIFIED: Decision = Object.freeze({ action: 'blocked', reason: 'unclassified', categories: [] });

/**
 * The filtering decision for `qname` under `policy` (DESIGN.md §8, steps 5–7 of the decision
 * order; lists and bypass come later):
 * - any category of the qname or a parent domain is blocked → `blocked`/`category`;
 * - no category at all and the policy does not allow unclassified names → `blocked`/`unclassified`;
 * - else `allowed`/`default`.
 * A null policy (a customer without a default policy) allows everything.
 * `qname` must be normalised (lower case, no trailing dot).
 */
export function decide(index: CategoryIndex, policy: CompiledPolicy | null | undefined, qname: string): Decision {
  const categories = index.categoriesOf(qname);
  if (!policy)
    return categories.length === 0 ? ALLOW_DEFAULT_EMPTY : { action: 'allowed', reason: 'default', categories };
  if (categories.length === 0) return policy.allowUnclassified ? ALLOW_DEFAULT_EMPTY : BLOCK_UNCLASSIFIED;
  const blocked = policy.blocked;
  for (let i = 0; i < categories.length; i++) {
    if (blocked[categories[i]!] === 1) return { action: 'blocked', reason: 'category', categories };
  }
  return { action: 'allowed', reason: 'default', categories };
}
