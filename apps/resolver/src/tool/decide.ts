import type { DatabaseHandle } from '@cordon/db';
import { normalizeDomain } from '@cordon/shared';
import pino from 'pino';
import { CategoryIndexBuilder } from '../policy/category-index.ts';
import { type CompiledPolicy, compilePolicy } from '../policy/compiled-policy.ts';
import { type Decision, type EngineSnapshot, evaluate, type KnownIdentity } from '../policy/engine/index.ts';
import { linkLists, listsPart } from '../snapshot/lists.ts';
import { staticRoutesPart } from '../snapshot/static-routes.ts';

/** What the test-categorisation tool asks (spec §7 `POST /tools/test/category`). */
export interface ToolQuestion {
  /** The name to decide, in any spelling (normalised here: lower case, no trailing dot, A-labels). */
  readonly domain: string;
  /** The customer whose policy, static routes and MSP lists apply. */
  readonly customerId: number;
  readonly mspId: number;
  /** The policy to decide under (a policy of that customer); null: no policy (categories only). */
  readonly policyId: number | null;
}

/** The tool's answer: the normalised name and the engine's decision (its categories included). */
export interface ToolAnswer {
  readonly qname: string;
  readonly decision: Decision;
}

const SILENT = pino({ enabled: false });

/** Every suffix of `qname` at a label boundary (`a.b.c`, `b.c`, `c`): the rows the category index would match. */
function suffixes(qname: string): string[] {
  const labels = qname.split('.');
  return labels.map((_, i) => labels.slice(i).join('.')).filter((s) => s !== '');
}

/** The compiled policy `policyId` of `customerId` from its rows, as the policies part compiles it; null when none. */
async function compiledPolicy(
  handle: DatabaseHandle,
  customerId: number,
  policyId: number,
): Promise<CompiledPolicy | null> {
  const row = await handle.db
    .selectFrom('policies')
    .select(['id', 'customer_id', 'allow_unclassified', 'safe_search'])
    .where('id', '=', policyId)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  if (!row) return null;
  const blocked = await handle.db
    .selectFrom('policy_categories')
    .select('category_id')
    .where('policy_id', '=', policyId)
    .where('customer_id', '=', customerId)
    .execute();
  return compilePolicy(
    row.id,
    row.customer_id,
    blocked.map((b) => b.category_id),
    Number(row.allow_unclassified) === 1,
    {},
    Number(row.safe_search) === 1,
  );
}

/**
 * The resolver's decision for `question` as `dig` would get it from a location of the customer
 * using that policy (docs/architecture.md "Decision order"): the SAME engine ({@link evaluate} and
 * its rules) over a snapshot holding just what this name needs — its category rows (every suffix,
 * as the category index matches), the lists and static routes loaded by the resolver's own parts,
 * and the policy compiled as the policies part compiles it. No client address, so no cloud-key
 * bypass applies. Reads the database; keeps nothing.
 */
export async function decideForTool(handle: DatabaseHandle, question: ToolQuestion, now: number): Promise<ToolAnswer> {
  const qname = normalizeDomain(question.domain).replace(/\.$/, '');
  const rows = await handle.db
    .selectFrom('category_domains')
    .select(['domain', 'category_id'])
    .where('domain', 'in', suffixes(qname))
    .orderBy('domain')
    .execute();
  const builder = new CategoryIndexBuilder({ domains: Math.max(rows.length, 1) });
  const byDomain = new Map<string, number[]>();
  for (const r of rows) byDomain.set(r.domain, [...(byDomain.get(r.domain) ?? []), r.category_id]);
  for (const [domain, ids] of byDomain) builder.add(domain, ids);
  const [lists, staticRoutes] = await Promise.all([
    listsPart.load(handle, SILENT, null),
    staticRoutesPart.load(handle, SILENT, null),
  ]);
  const compiled =
    question.policyId === null ? null : await compiledPolicy(handle, question.customerId, question.policyId);
  const policy = compiled === null ? null : linkLists(compiled, lists, new Map());
  const snapshot: EngineSnapshot = {
    categories: builder.build(),
    staticRoutes,
    mspLists: lists.msp,
    systemLists: lists.system,
    bypasses: new Map(),
  };
  const identity: KnownIdentity = {
    kind: 'ok',
    customerId: question.customerId,
    mspId: question.mspId,
    locationId: null,
    deviceId: null,
    userId: null,
    userName: null,
    groupId: null,
    policy,
    deviceRoutes: null,
  };
  return { qname, decision: evaluate(snapshot, identity, { qname }, now) };
}
