import type { QueryAction, QueryReason } from '@cordon/shared';
import type { Decision } from './types.ts';

const NONE: readonly number[] = Object.freeze([]);

function frozen(action: QueryAction, reason: QueryReason): Decision {
  return Object.freeze({ action, reason, categories: NONE });
}

/** The decisions that carry no categories, built once and shared by every query (docs/architecture.md "Decision order"). */
export const DECISIONS = Object.freeze({
  allowedDefault: frozen('allowed', 'default'),
  blockedUnclassified: frozen('blocked', 'unclassified'),
  policyAllow: frozen('allowed', 'policy_allow'),
  policyBlock: frozen('blocked', 'policy_block'),
  mspAllow: frozen('allowed', 'msp_allow'),
  mspBlock: frozen('blocked', 'msp_block'),
  globalAllow: frozen('allowed', 'global_allow'),
  globalBlock: frozen('blocked', 'global_block'),
  bypassed: frozen('bypassed', 'bypass'),
});

/**
 * The `static_route` decision forwarding to `resolver` (`host:port`), built once per route when the
 * snapshot is loaded.
 */
export function staticRouteDecision(resolver: string): Decision {
  return Object.freeze({ action: 'allowed', reason: 'static_route', categories: NONE, forwardTo: resolver });
}

/** Decisions of one interned category set: the index hands out the same frozen array for a set. */
interface CategoryDecisions {
  readonly allowed: Decision;
  readonly blocked: Decision;
}

const byCategorySet = new WeakMap<readonly number[], CategoryDecisions>();

function decisionsOf(categories: readonly number[]): CategoryDecisions {
  let d = byCategorySet.get(categories);
  if (d === undefined) {
    const ids = Object.isFrozen(categories) ? categories : Object.freeze(categories.slice());
    d = {
      allowed: Object.freeze({ action: 'allowed', reason: 'default', categories: ids }),
      blocked: Object.freeze({ action: 'blocked', reason: 'category', categories: ids }),
    };
    // Only the index's interned sets are remembered; a merged set (several levels matched) is new
    // on every lookup and would only fill the map.
    if (Object.isFrozen(categories)) byCategorySet.set(categories, d);
  }
  return d;
}

/** `allowed`/`default` carrying `categories` (step 7); shared per interned category set. */
export function allowedWith(categories: readonly number[]): Decision {
  return categories.length === 0 ? DECISIONS.allowedDefault : decisionsOf(categories).allowed;
}

/** `blocked`/`category` carrying `categories` (step 5); shared per interned category set. */
export function blockedByCategory(categories: readonly number[]): Decision {
  return decisionsOf(categories).blocked;
}
