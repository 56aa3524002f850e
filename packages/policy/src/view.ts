import type { DatabaseHandle } from '@cordon/db';
import { CategoryIndexBuilder } from './category-index.ts';
import { type CompiledPolicy, withLists } from './compiled-policy.ts';
import { type DomainLists, NO_LISTS } from './domain-index.ts';
import type { EngineSnapshot, KnownIdentity } from './engine/index.ts';
import { addListEntry, compilePolicyRow, emptyLists, type MutableLists, staticRouteIndexes } from './entries.ts';
import { type CategoryOverrides, withOverrides } from './overrides.ts';

/** Whose view to load, and for which name (docs/architecture.md "Decision order"). */
export interface CustomerViewQuestion {
  /** The name, normalised (lower case, no trailing dot, A-labels). */
  readonly qname: string;
  /** The customer whose static routes and policy apply (0: none, only the system's lists and the categories). */
  readonly customerId: number;
  /** The customer's MSP, whose global lists apply (0: none). */
  readonly mspId: number;
  /** A policy of that customer to decide under; null: no policy (the categories only, nothing blocked by them). */
  readonly policyId: number | null;
}

/** One customer's view: the engine's snapshot restricted to what the name and the customer need, and the identity asking. */
export interface CustomerView {
  readonly snapshot: EngineSnapshot;
  readonly identity: KnownIdentity;
}

/** Every suffix of `qname` at a label boundary (`a.b.c`, `b.c`, `c`): the rows the category index and the overrides match. */
export function suffixes(qname: string): string[] {
  const labels = qname.split('.');
  return labels.map((_, i) => labels.slice(i).join('.')).filter((s) => s !== '');
}

/** Seals the indexes and returns them as read-only lists, or {@link NO_LISTS} when both are empty (the rules then pass at once). */
function sealed(lists: MutableLists): DomainLists {
  lists.allow.seal();
  lists.block.seal();
  return lists.allow.size + lists.block.size > 0 ? lists : NO_LISTS;
}

/**
 * Loads what the engine reads to decide `question.qname` for one customer, as the resolver's
 * snapshot holds it (docs/architecture.md "Decision order"), in one read-only transaction:
 * - the category rows of the name and its parents, under the approved recategorisations of those
 *   suffixes (an override of `example.com` decides `www.example.com` too);
 * - that customer's static routes; its policy (if any, scoped to the customer) with its blocked
 *   categories and its allow and block lists;
 * - the global lists of its MSP and of the system.
 * No other tenant's row is read. No client address and no device, so no cloud-key bypass and no
 * device route applies. Rows in id order, as the resolver reads them, so duplicates resolve alike.
 * @throws when the database cannot be read
 */
export async function loadCustomerView(handle: DatabaseHandle, question: CustomerViewQuestion): Promise<CustomerView> {
  const names = suffixes(question.qname);
  const { customerId, mspId, policyId } = question;
  return handle.db
    .transaction()
    .setAccessMode('read only')
    .execute(async (trx) => {
      const categoryRows =
        names.length === 0
          ? []
          : await trx
              .selectFrom('category_domains')
              .select(['domain', 'category_id'])
              .where('domain', 'in', names)
              .orderBy('domain')
              .execute();
      const overrideRows =
        names.length === 0
          ? []
          : await trx
              .selectFrom('category_overrides')
              .select(['domain', 'category_id'])
              .where('domain', 'in', names)
              .execute();
      const routeRows = await trx
        .selectFrom('static_routes')
        .select(['customer_id', 'domain', 'resolver_ip', 'resolver_port'])
        .where('customer_id', '=', customerId)
        .orderBy('id')
        .execute();
      let policy: CompiledPolicy | null = null;
      if (policyId !== null) {
        const row = await trx
          .selectFrom('policies')
          .select(['id', 'customer_id', 'allow_unclassified', 'safe_search'])
          .where('id', '=', policyId)
          .where('customer_id', '=', customerId)
          .executeTakeFirst();
        if (row) {
          const blocked = await trx
            .selectFrom('policy_categories')
            .select('category_id')
            .where('policy_id', '=', row.id)
            .where('customer_id', '=', customerId)
            .execute();
          const own = emptyLists();
          const entries = await trx
            .selectFrom('policy_domains')
            .select(['domain', 'action', 'include_subdomains'])
            .where('policy_id', '=', row.id)
            .where('customer_id', '=', customerId)
            .orderBy('id')
            .execute();
          for (const e of entries) addListEntry(own, e);
          const compiled = compilePolicyRow(
            row,
            blocked.map((b) => b.category_id),
          );
          policy = entries.length === 0 ? compiled : withLists(compiled, sealed(own));
        }
      }
      const msp = emptyLists();
      const system = emptyLists();
      const globals = await trx
        .selectFrom('global_domains')
        .select(['msp_id', 'domain', 'action', 'include_subdomains'])
        .where((eb) => eb.or([eb('msp_id', 'is', null), eb('msp_id', '=', mspId)]))
        .orderBy('id')
        .execute();
      for (const g of globals) addListEntry(g.msp_id === null ? system : msp, g);

      const builder = new CategoryIndexBuilder({ domains: Math.max(categoryRows.length, 1) });
      const byDomain = new Map<string, number[]>();
      for (const r of categoryRows) byDomain.set(r.domain, [...(byDomain.get(r.domain) ?? []), r.category_id]);
      for (const [domain, ids] of byDomain) builder.add(domain, ids);
      const overrides: CategoryOverrides = new Map(overrideRows.map((r) => [r.domain, Object.freeze([r.category_id])]));
      const mspLists = sealed(msp);
      const snapshot: EngineSnapshot = {
        categories: withOverrides(builder.build(), overrides),
        staticRoutes: staticRouteIndexes(routeRows),
        mspLists: mspLists === NO_LISTS ? new Map() : new Map([[mspId, mspLists]]),
        systemLists: sealed(system),
        bypasses: new Map(),
      };
      const identity: KnownIdentity = {
        kind: 'ok',
        customerId,
        mspId,
        locationId: null,
        deviceId: null,
        userId: null,
        userName: null,
        groupId: null,
        policy,
        deviceRoutes: null,
      };
      return { snapshot, identity };
    });
}
