import type { CategoryIndex, CategoryLookup } from '../policy/category-index.ts';
import type { SnapshotPart } from './part.ts';

/**
 * Approved recategorisations (spec §7 `POST /tools/recategorize`; docs/architecture.md "Decision
 * order"): domain → its one category, winning over every feed for the domain and its subdomains.
 * A small table read whole on its own topic, so an approval is answered within a second without
 * rebuilding the category index.
 */
export type CategoryOverrides = ReadonlyMap<string, readonly number[]>;

/**
 * The category index under the overrides: the most specific overridden suffix of `qname` decides
 * alone; a name under no override gets the index's answer. With no override at all this is the
 * index itself, so the usual path allocates nothing.
 */
export function withOverrides(index: CategoryIndex, overrides: CategoryOverrides): CategoryLookup {
  if (overrides.size === 0) return index;
  return {
    categoriesOf(qname: string): readonly number[] {
      let start = 0;
      while (start < qname.length) {
        const hit = overrides.get(start === 0 ? qname : qname.slice(start));
        if (hit) return hit;
        const dot = qname.indexOf('.', start);
        if (dot < 0) break;
        start = dot + 1;
      }
      return index.categoriesOf(qname);
    },
  };
}

/** `category_overrides` read whole (a few rows per approved request); follows `category_overrides`. */
export const overridesPart: SnapshotPart<CategoryOverrides> = {
  name: 'category_overrides',
  topics: ['category_overrides'],
  empty: () => new Map(),
  load: async (handle) => {
    const rows = await handle.db.selectFrom('category_overrides').select(['domain', 'category_id']).execute();
    return new Map(rows.map((r) => [r.domain, Object.freeze([r.category_id])]));
  },
};
