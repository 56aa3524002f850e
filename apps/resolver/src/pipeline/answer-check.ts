import { evaluate } from '@cordon/policy';
import type { ResolverCounters } from '../metrics.ts';
import type { Decision, Middleware, PipelineResponse, QueryContext } from '../request.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import { type BlockAddresses, blockedAnswer, blockedTemplates } from './answers.ts';

/**
 * The qname decisions that end the check before it starts: an explicit allow entry for the qname
 * (the policy's, the MSP's, the system's) wins over its answer's aliases, as an operator expects;
 * a bypassed client and a statically routed name are not filtered at all.
 */
function exempt(decision: Decision): boolean {
  switch (decision.reason) {
    case 'policy_allow':
    case 'msp_allow':
    case 'global_allow':
    case 'bypass':
    case 'static_route':
      return true;
    default:
      return false;
  }
}

/**
 * answer-check (docs/architecture.md "Answer check"): an allowed qname's upstream answer — fresh,
 * cached, coalesced or stale — is checked name by name against the same policy before it reaches
 * the client, so that an allowed alias cannot reveal a blocked site (CNAME and DNAME cloaking).
 * Every owner and target of the answer section's CNAME/DNAME chain and every HTTPS/SVCB target
 * ({@link CompiledAnswer.aliases}, found once when the answer is compiled) goes through
 * {@link evaluate} with the client's identity, in the answer's order; the first blocked one turns
 * the answer into the block answer, logged as blocked with that name's rule and categories and the
 * name itself ({@link Decision.matchedName}). The check runs after the shared cache, so one cached
 * upstream answer is blocked for one customer and served to another. Answers without aliases (the
 * common case) cost one property read.
 * @throws when a block address is not a valid IP literal (at pipeline construction)
 */
export function answerCheckLink(
  store: SnapshotStore,
  addresses: BlockAddresses,
  counters: ResolverCounters,
): Middleware {
  const templates = blockedTemplates(addresses);
  const check = (answer: PipelineResponse): PipelineResponse => {
    const aliases = answer.compiled?.aliases;
    if (aliases === undefined || aliases === null) return answer;
    const ctx = answer.context;
    const identity = ctx.identity;
    if (identity === null || identity.kind !== 'ok') return answer;
    const req = ctx.request;
    for (let i = 0; i < aliases.length; i++) {
      const matchedName = aliases[i]!;
      const d = evaluate(store, identity, { qname: matchedName, clientIp: req.clientIp }, req.receivedAt);
      if (d.action !== 'blocked') continue;
      counters.allowed--;
      counters.blocked++;
      counters.blockedByAlias++;
      const decision: Decision = Object.freeze({ ...d, matchedName });
      const blocked: QueryContext = { request: req, identity, decision };
      return blockedAnswer(blocked, templates);
    }
    return answer;
  };
  return (next) => (ctx) => {
    const decision = ctx.decision;
    if (decision === null || decision.action !== 'allowed' || exempt(decision)) return next(ctx);
    const answer = next(ctx);
    return answer instanceof Promise ? answer.then(check) : check(answer);
  };
}
