import { MAX_CATEGORY_ID } from '@cordon/shared';
import type { DomainIndex } from './domain-index.ts';

/**
 * A policy compiled for the hot path (docs/architecture.md "Data plane"): which categories it
 * blocks as a flag per category id, its "allow unclassified" switch, and its own allow and block
 * lists (null when the list is empty, so the list rules exit at once).
 */
export interface CompiledPolicy {
  readonly id: number;
  readonly customerId: number;
  /** `blocked[id] === 1` when the policy blocks category `id` (length MAX_CATEGORY_ID + 1 = 55). */
  readonly blocked: Uint8Array;
  /** Decision order step 6: names with no category are allowed unless this is false. */
  readonly allowUnclassified: boolean;
  /** The policy's allow list (step 3), or null when it has no entry. */
  readonly allow: DomainIndex<true> | null;
  /** The policy's block list (step 3), or null when it has no entry. */
  readonly block: DomainIndex<true> | null;
  /** Safe search: the search engines' hosts answer with their safe-search CNAMEs (policy/safe-search.ts). */
  readonly safeSearch: boolean;
}

/**
 * Compiles a policy row, its blocked category ids (ids outside 0–54 are ignored), its lists (an
 * empty list is stored as null) and its safe-search switch. The lists have no table yet (the content-filtering issue adds it):
 * loaders pass none.
 */
export function compilePolicy(
  id: number,
  customerId: number,
  blockedCategoryIds: Iterable<number>,
  allowUnclassified: boolean,
  lists: { allow?: DomainIndex<true>; block?: DomainIndex<true> } = {},
  safeSearch = false,
): CompiledPolicy {
  const blocked = new Uint8Array(MAX_CATEGORY_ID + 1);
  for (const c of blockedCategoryIds) if (c >= 0 && c <= MAX_CATEGORY_ID) blocked[c] = 1;
  const allow = lists.allow && lists.allow.size > 0 ? lists.allow : null;
  const block = lists.block && lists.block.size > 0 ? lists.block : null;
  return Object.freeze({ id, customerId, blocked, allowUnclassified, allow, block, safeSearch });
}

/**
 * `policy` with its allow and block lists (decision order step 3) replaced by `lists`; an empty list
 * is stored as null so the list rules exit at once. The snapshot links the lists part into the
 * compiled policies with it.
 */
export function withLists(
  policy: CompiledPolicy,
  lists: { allow: DomainIndex<true>; block: DomainIndex<true> },
): CompiledPolicy {
  const allow = lists.allow.size > 0 ? lists.allow : null;
  const block = lists.block.size > 0 ? lists.block : null;
  return Object.freeze({ ...policy, allow, block });
}
