import type { DatabaseHandle } from '@cordon/db';
import { normalizeDomain } from '@cordon/shared';
import { type Decision, evaluate } from './engine/index.ts';
import { loadCustomerView } from './view.ts';

/** What the test-categorisation tool asks (spec-notes §7 `POST /tools/test/category`). */
export interface ToolQuestion {
  /** The name to decide, in any spelling (normalised here: lower case, no trailing dot, A-labels). */
  readonly domain: string;
  /** The customer whose policy, static routes and MSP lists apply (0: none). */
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

/**
 * The resolver's decision for `question` as `dig` gets it from a location of the customer using
 * that policy (docs/architecture.md "Decision order"): the SAME engine ({@link evaluate} and its
 * rules) over that one customer's view ({@link loadCustomerView}: its lists, policy and static
 * routes, its MSP's and the system's lists, the name's categories under the approved
 * recategorisations). No client address, so no cloud-key bypass applies. Reads the database;
 * keeps nothing.
 * @throws when the database cannot be read
 */
export async function decideForTool(handle: DatabaseHandle, question: ToolQuestion, now: number): Promise<ToolAnswer> {
  const qname = normalizeDomain(question.domain).replace(/\.$/, '');
  const view = await loadCustomerView(handle, {
    qname,
    customerId: question.customerId,
    mspId: question.mspId,
    policyId: question.policyId,
  });
  return { qname, decision: evaluate(view.snapshot, view.identity, { qname }, now) };
}
