import { CATEGORIES, UNCLASSIFIED_CATEGORY_ID } from './categories.ts';

/**
 * The groups the policy editor shows the categories in (docs/categories.md "Category groups"). A
 * grouping for people only: the resolver, the API and the reports know categories, never groups.
 */
export const CATEGORY_GROUP_IDS = [
  'security',
  'adult',
  'harmful',
  'social',
  'streaming',
  'productivity',
  'lifestyle',
  'information',
] as const;
export type CategoryGroupId = (typeof CATEGORY_GROUP_IDS)[number];

/** One group: its key (the console's translation key `categoryGroups.<id>`), English name and category ids. */
export interface CategoryGroup {
  readonly id: CategoryGroupId;
  readonly name: string;
  readonly categoryIds: readonly number[];
}

/**
 * Every category of the taxonomy but Unclassified (0: the policy's "Allow unclassified" setting) in
 * exactly one group, in the order the editor lists them (packages/shared/test/category-groups.test.ts
 * checks the cover).
 */
export const CATEGORY_GROUPS: readonly CategoryGroup[] = [
  { id: 'security', name: 'Security and privacy', categoryIds: [1, 2, 5, 6, 12, 49, 53] },
  { id: 'adult', name: 'Adult', categoryIds: [7, 8, 9, 23] },
  { id: 'harmful', name: 'Drugs, gambling, violence and hate', categoryIds: [3, 4, 10, 11, 16, 19, 20] },
  { id: 'social', name: 'Social and communication', categoryIds: [25, 43, 44, 45, 46] },
  { id: 'streaming', name: 'Streaming, games and entertainment', categoryIds: [21, 27, 36, 37, 38] },
  { id: 'productivity', name: 'Work and technology', categoryIds: [13, 14, 15, 47, 48, 50, 51, 54] },
  { id: 'lifestyle', name: 'Shopping and lifestyle', categoryIds: [17, 18, 22, 24, 26, 28, 40, 42, 52] },
  { id: 'information', name: 'News, education and society', categoryIds: [29, 30, 31, 32, 33, 34, 35, 39] },
];

const GROUP_OF = new Map<number, CategoryGroupId>(
  CATEGORY_GROUPS.flatMap((g) => g.categoryIds.map((id) => [id, g.id] as const)),
);

/** The group of category `id`, or undefined for Unclassified and ids outside the taxonomy. */
export function categoryGroupOf(id: number): CategoryGroupId | undefined {
  return GROUP_OF.get(id);
}

/** The ids of the taxonomy the groups must cover: every category but Unclassified. */
export function groupedCategoryIds(): number[] {
  return CATEGORIES.filter((c) => c.id !== UNCLASSIFIED_CATEGORY_ID).map((c) => c.id);
}
