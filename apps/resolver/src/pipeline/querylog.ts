import { qtypeName, Rcode, rcodeName } from '../dns/message.ts';
import type { ResolverCounters } from '../metrics.ts';
import type { QueryLogSink } from '../querylog/writer.ts';
import type { Middleware, PipelineResponse } from '../request.ts';

/** The `categories` column of each interned category set (the index hands out one frozen array per set). */
const categoriesTexts = new WeakMap<readonly number[], string>();

/** `categories` as the query log stores them: ids joined by commas, '' for none; joined once per interned set. */
function categoriesText(categories: readonly number[]): string {
  if (categories.length === 0) return '';
  let text = categoriesTexts.get(categories);
  if (text === undefined) {
    text = categories.join(',');
    if (Object.isFrozen(categories)) categoriesTexts.set(categories, text);
  }
  return text;
}

/**
 * querylog: wraps the whole chain, so every answer — synthesized, cached, stale or SERVFAIL — is
 * timed and logged with the identity (customer, location, device, internal user and group: migration
 * 0029) and decision of the context it was produced in. Pushing never waits (docs/contributing.md
 * "Conventions" 7). Unknown clients have no customer to log against: only counted. Synchronous
 * answers are logged synchronously (no promise per query).
 */
export function queryLogLink(sink: QueryLogSink, counters: ResolverCounters): Middleware {
  const log = (answer: PipelineResponse): PipelineResponse => {
    if (answer.rcode === Rcode.SERVFAIL) counters.servfail++;
    const c = answer.context;
    const identity = c.identity;
    if (identity?.kind !== 'ok') return answer;
    const req = c.request;
    const decision = c.decision;
    sink.push({
      ts: req.receivedAt,
      customer_id: identity.customerId,
      location_id: identity.locationId,
      policy_id: identity.policy === null ? null : identity.policy.id,
      client_ip: req.clientIp,
      qname: req.question.qname,
      qtype: qtypeName(req.question.typeCode, req.question.type),
      protocol: req.protocol,
      action: decision?.action ?? 'allowed',
      reason: decision?.reason ?? 'default',
      categories: decision ? categoriesText(decision.categories) : '',
      rcode: rcodeName(answer.rcode),
      answer_source: answer.source,
      latency_us: Math.round((performance.now() - req.startedAt) * 1000),
      device_id: identity.deviceId,
      user_id: identity.userId,
      user_name: identity.userName ?? '',
      group_id: identity.groupId,
      matched_name: decision?.matchedName ?? '',
    });
    return answer;
  };
  return (next) => (ctx) => {
    const answer = next(ctx);
    return answer instanceof Promise ? answer.then(log) : log(answer);
  };
}
