import type { CategoryIndex, CategoryLookup } from './category-index.ts';

/**
 * Approved recategorisations (spec-notes §7 `POST /tools/recategorize`; docs/architecture.md "Decision
 * order"): domain (normalised) → its one category, winning over every feed for the domain and its
 * subdomains. The resolver reads the whole table into its snapshot; the test-categorisation tool
 * reads the rows of one name's suffixes (view.ts).
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
