import type { CompiledPolicy } from '@cordon/policy';
import { CATEGORIES, Constants } from '@cordon/shared';
import type { Answer } from 'dns-packet';
import { codec } from '../dns/codec.ts';
import { allocResponse, EdeCode, edeOption, emptyResponse, Rcode } from '../dns/message.ts';
import type { Decision, PipelineResponse, QueryContext } from '../request.ts';

/** Addresses blocked A/AAAA questions are answered with (the block page): docs/architecture.md "Decision order" "Answers". */
export interface BlockAddresses {
  readonly ipv4: string;
  readonly ipv6: string;
}

/**
 * The wire answers for blocked names, encoded once per set of block addresses: each record's owner
 * is the pointer `0xC00C` to the question (RFC 1035 §4.1.4), so the client's own spelling of the
 * qname comes back, with TTL {@link Constants.blockedAnswerTtl} (60 s).
 */
export interface BlockedTemplates {
  /** `A` record body (16 bytes): the block page's IPv4 address. */
  readonly a: Buffer;
  /** `AAAA` record body (28 bytes): the block page's IPv6 address. */
  readonly aaaa: Buffer;
  /**
   * The authority `SOA` of every other blocked qtype's NODATA (RFC 2308 §5: a negative answer
   * without an SOA cannot be cached downstream): the qname as the apex of a synthetic zone,
   * {@link BLOCKED_SOA_MNAME} / {@link BLOCKED_SOA_RNAME}, TTL and MINIMUM the block TTL.
   */
  readonly soa: Buffer;
}

/** MNAME of the blocked answers' synthetic SOA: a name under `.invalid` (RFC 6761 §6.4), never resolvable. */
export const BLOCKED_SOA_MNAME = 'blocked.cordon.invalid';
/** RNAME of the blocked answers' synthetic SOA. */
export const BLOCKED_SOA_RNAME = 'hostmaster.cordon.invalid';

/**
 * Encodes the blocked-answer records for `addresses`.
 * @throws when an address is not a valid IPv4 / IPv6 literal
 */
export function blockedTemplates(addresses: BlockAddresses): BlockedTemplates {
  const ttl = Constants.blockedAnswerTtl;
  const record = (rr: Answer) => Buffer.concat([Buffer.from([0xc0, 0x0c]), codec.answer.encode(rr).subarray(1)]);
  return {
    a: record({ name: '.', type: 'A', class: 'IN', ttl, data: addresses.ipv4 }),
    aaaa: record({ name: '.', type: 'AAAA', class: 'IN', ttl, data: addresses.ipv6 }),
    soa: record({
      name: '.',
      type: 'SOA',
      class: 'IN',
      ttl,
      data: {
        mname: BLOCKED_SOA_MNAME,
        rname: BLOCKED_SOA_RNAME,
        serial: 1,
        refresh: 3600,
        retry: 600,
        expire: 86_400,
        minimum: ttl,
      },
    } as Answer),
  };
}

/**
 * The Extended DNS Error of a block (RFC 8914; docs/decisions.md "Extended DNS Errors"): 17
 * Filtered for what the customer's policy chose (a category, the policy's block list, unclassified
 * names), 15 Blocked for what the operator or MSP imposes (the system's and MSP's block lists);
 * EXTRA-TEXT names the rule, the categories and the policy, and the alias when an answer's
 * CNAME/DNAME chain was blocked (`via` the name). Encoded once per decision and policy.
 */
export function blockEde(decision: Decision, policy: CompiledPolicy | null): Buffer {
  const imposed = decision.reason === 'msp_block' || decision.reason === 'global_block';
  let text: string;
  switch (decision.reason) {
    case 'category':
      text = `category ${decision.categories.map(categoryName).join(', ')}`;
      break;
    case 'policy_block':
      text = 'policy block list';
      break;
    case 'msp_block':
      text = 'MSP block list';
      break;
    case 'global_block':
      text = 'system block list';
      break;
    case 'unclassified':
      text = 'unclassified name';
      break;
    default:
      text = decision.reason;
  }
  if (policy !== null && !imposed) text += `; policy ${policy.id}`;
  if (decision.matchedName !== undefined) text += `; via ${decision.matchedName}`;
  return edeOption(imposed ? EdeCode.BLOCKED : EdeCode.FILTERED, `Cordon: ${text}`);
}

const categoryNames = new Map(CATEGORIES.map((c) => [c.id, c.name]));

function categoryName(id: number): string {
  return categoryNames.get(id) ?? `#${id}`;
}

/** EDE option per (policy, decision): both are long-lived frozen objects of the snapshot. */
const edeByPolicy = new WeakMap<object, WeakMap<Decision, Buffer>>();
const NO_POLICY = {};

function blockEdeOf(decision: Decision, policy: CompiledPolicy | null): Buffer {
  if (decision.matchedName !== undefined) return blockEde(decision, policy);
  const key = policy ?? NO_POLICY;
  let byDecision = edeByPolicy.get(key);
  if (byDecision === undefined) {
    byDecision = new WeakMap();
    edeByPolicy.set(key, byDecision);
  }
  let option = byDecision.get(decision);
  if (option === undefined) {
    option = blockEde(decision, policy);
    byDecision.set(decision, option);
  }
  return option;
}

/**
 * The answer for a blocked qname (docs/architecture.md "Decision order" "Answers"): qclass IN and
 * qtype A → the block page's IPv4 address, AAAA → its IPv6 address, TTL 60; HTTPS (65), SVCB (64)
 * and every other qtype → NODATA (NOERROR, empty answer section, so browsers fall back to A) with
 * the synthetic zone's SOA in the authority section (RFC 2308 §5); an EDE saying why when the
 * client sent EDNS(0) ({@link blockEde}). Written straight into one Buffer: header, the query's
 * question, the record, OPT when asked.
 */
export function blockedAnswer(ctx: QueryContext, templates: BlockedTemplates): PipelineResponse {
  const req = ctx.request;
  const q = req.question;
  const ede =
    req.edns === null || ctx.decision === null
      ? null
      : blockEdeOf(ctx.decision, ctx.identity?.kind === 'ok' ? ctx.identity.policy : null);
  const address = q.classCode !== 1 ? null : q.typeCode === 1 ? templates.a : q.typeCode === 28 ? templates.aaaa : null;
  let wire: Buffer;
  if (address !== null) {
    wire = allocResponse(req, Rcode.NOERROR, 0, 1, 0, 0, address.length, ede);
    address.copy(wire, req.questionEnd);
  } else {
    wire = allocResponse(req, Rcode.NOERROR, 0, 0, 1, 0, templates.soa.length, ede);
    templates.soa.copy(wire, req.questionEnd);
  }
  return { wire, rcode: Rcode.NOERROR, source: 'synthesized', context: ctx };
}

const PROHIBITED = edeOption(EdeCode.PROHIBITED);

/**
 * REFUSED for a client Cordon does not serve (docs/architecture.md "Decision order": never an open
 * resolver), with EDE 18 Prohibited (RFC 8914 §4.19) when the client sent EDNS(0).
 */
export function refusedAnswer(ctx: QueryContext): PipelineResponse {
  return {
    wire: emptyResponse(ctx.request, Rcode.REFUSED, PROHIBITED),
    rcode: Rcode.REFUSED,
    source: 'refused',
    context: ctx,
  };
}

/** The EDE options of SERVFAIL, by INFO-CODE (one each). */
const servfailEde = new Map<number, Buffer>();

/**
 * SERVFAIL: no upstream answered and nothing stale was cached (RFC 8767 §4 last resort); `ede`:
 * the Extended DNS Error INFO-CODE saying why (RFC 8914 §4: 22 No Reachable Authority, 23 Network
 * Error), sent when the client sent EDNS(0); none when omitted.
 */
export function servfailAnswer(ctx: QueryContext, ede?: number): PipelineResponse {
  let option: Buffer | null = null;
  if (ede !== undefined) {
    option = servfailEde.get(ede) ?? null;
    if (option === null) {
      option = edeOption(ede);
      servfailEde.set(ede, option);
    }
  }
  return {
    wire: emptyResponse(ctx.request, Rcode.SERVFAIL, option),
    rcode: Rcode.SERVFAIL,
    source: 'error',
    context: ctx,
  };
}
