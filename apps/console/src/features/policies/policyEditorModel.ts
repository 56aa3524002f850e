import {
  CATEGORY_GROUPS,
  type CategoryGroupId,
  type CategoryLevel,
  categoriesBlockedAt,
  type FilteringLevel,
} from '@cordon/shared';

/** A protection level the editor starts from (docs/categories.md "The policy editor"): Custom is not one. */
export type BaseLevel = Exclude<FilteringLevel, 'custom'>;
export const BASE_LEVELS: readonly BaseLevel[] = ['low', 'moderate', 'high'];

/** A category as the editor needs it: id, name and its current protection level (null: no level blocks it). */
export interface EditorCategory {
  id: number;
  name: string;
  level: CategoryLevel | null;
}

/** The category ids `level` blocks under the categories' current levels (spec-notes §4). */
export function levelSet(level: BaseLevel, categories: readonly EditorCategory[]): Set<number> {
  return new Set(categoriesBlockedAt(level, categories));
}

/** How many categories of `categories` are blocked in one set and not in the other. */
export function differenceCount(
  a: ReadonlySet<number>,
  b: ReadonlySet<number>,
  categories: readonly EditorCategory[],
): number {
  return categories.filter((c) => a.has(c.id) !== b.has(c.id)).length;
}

/**
 * The level the editor compares the choices with: the policy's own when it is a named one, else
 * (Custom) the named level with the fewest differences, the lower one on a tie.
 */
export function baseLevelOf(
  level: FilteringLevel,
  blocked: ReadonlySet<number>,
  categories: readonly EditorCategory[],
): BaseLevel {
  if (level !== 'custom') return level;
  let best: BaseLevel = 'low';
  let bestCount = Number.POSITIVE_INFINITY;
  for (const l of BASE_LEVELS) {
    const n = differenceCount(blocked, levelSet(l, categories), categories);
    if (n < bestCount) {
      best = l;
      bestCount = n;
    }
  }
  return best;
}

/** One group of the editor with the categories of the policy it has (in the group's order). */
export interface EditorGroup {
  id: CategoryGroupId;
  categories: EditorCategory[];
}

/**
 * The categories in their groups (`CATEGORY_GROUPS` of @cordon/shared); a category the groups do
 * not name (a taxonomy newer than the console) goes to the last group rather than disappear.
 * Unclassified (0) is left out: the "Allow unclassified" switch decides it.
 */
export function groupCategories(categories: readonly EditorCategory[]): EditorGroup[] {
  const byId = new Map(categories.map((c) => [c.id, c]));
  const placed = new Set<number>();
  const groups: EditorGroup[] = CATEGORY_GROUPS.map((g) => ({
    id: g.id,
    categories: g.categoryIds.flatMap((id) => {
      const c = byId.get(id);
      if (!c) return [];
      placed.add(id);
      return [c];
    }),
  }));
  const rest = categories.filter((c) => c.id !== 0 && !placed.has(c.id));
  if (rest.length > 0) groups.at(-1)!.categories.push(...rest);
  return groups.filter((g) => g.categories.length > 0);
}

/** `blocked` with every id of `ids` blocked (`block`) or allowed. */
export function setAll(blocked: ReadonlySet<number>, ids: readonly number[], block: boolean): Set<number> {
  const next = new Set(blocked);
  for (const id of ids) {
    if (block) next.add(id);
    else next.delete(id);
  }
  return next;
}

/** Whether two blocked sets hold the same ids. */
export function sameSet(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  if (a.size !== b.size) return false;
  for (const id of a) if (!b.has(id)) return false;
  return true;
}
