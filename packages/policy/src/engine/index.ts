/**
 * The policy engine (docs/architecture.md "Decision order"): one ordered array of rules, the first
 * that decides wins. The pipeline's policy link, the block page and the test-categorisation tool
 * all call {@link evaluate}, so they can never disagree.
 */
import { allowedWith } from './decisions.ts';
import { bypassRule } from './rules/bypass.ts';
import { categoryRule } from './rules/category.ts';
import { mspAllowRule } from './rules/msp-allow.ts';
import { mspBlockRule } from './rules/msp-block.ts';
import { policyAllowRule } from './rules/policy-allow.ts';
import { policyBlockRule } from './rules/policy-block.ts';
import { staticRouteRule } from './rules/static-route.ts';
import { systemAllowRule } from './rules/system-allow.ts';
import { systemBlockRule } from './rules/system-block.ts';
import { unclassifiedRule } from './rules/unclassified.ts';
import type { Decision, EngineQuestion, EngineSnapshot, KnownIdentity, Rule } from './types.ts';

export { DECISIONS, staticRouteDecision } from './decisions.ts';
export type {
  ActiveBypass,
  Decision,
  DeviceRoutes,
  EngineQuestion,
  EngineSnapshot,
  Identity,
  KnownIdentity,
  Rule,
} from './types.ts';

/**
 * THE decision order, first rule first (docs/architecture.md "Decision order"). Pinned by
 * packages/policy/test/engine/order.test.ts: change it only together with that test and a reason.
 */
export const RULES: readonly Rule[] = Object.freeze([
  bypassRule,
  staticRouteRule,
  policyAllowRule,
  policyBlockRule,
  mspAllowRule,
  mspBlockRule,
  systemAllowRule,
  systemBlockRule,
  categoryRule,
  unclassifiedRule,
]);

/**
 * The filtering decision for `question` asked by `identity` at `now` (epoch ms): the first of
 * {@link RULES} that decides, else `allowed`/`default` with the name's categories (step 7).
 * Synchronous and allocation-free on the common path (decisions are frozen and shared).
 * `question.qname` must be normalised (lower case, no trailing dot, A-labels).
 */
export function evaluate(
  snapshot: EngineSnapshot,
  identity: KnownIdentity,
  question: EngineQuestion,
  now: number,
  rules: readonly Rule[] = RULES,
): Decision {
  const qname = question.qname;
  const clientIp = question.clientIp;
  for (let i = 0; i < rules.length; i++) {
    const decision = rules[i]!.decide(snapshot, identity, qname, now, clientIp);
    if (decision !== null) return decision;
  }
  return allowedWith(snapshot.categories.categoriesOf(qname));
}
