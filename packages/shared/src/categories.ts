/**
 * Cordon's category taxonomy and protection levels (docs/architecture.md "Categories"; spec-notes §3 "Category", §4 "Protection levels").
 * Ids 0–54, 41 unused. A category's level says from which protection level up it is blocked:
 * `L` from Low, `M` from Moderate, `H` only at High; `null` only when a Custom policy picks it.
 */
export type CategoryLevel = 'L' | 'M' | 'H';

/** One category of the taxonomy. Invariant: `id` is unique and in 0–54. */
export interface Category {
  readonly id: number;
  readonly name: string;
  readonly level: CategoryLevel | null;
}

export const CATEGORIES: readonly Category[] = [
  { id: 0, name: 'Unclassified', level: null },
  { id: 1, name: 'Compromised', level: 'L' },
  { id: 2, name: 'Criminal Skills/Hacking', level: 'L' },
  { id: 3, name: 'Hate Speech', level: 'L' },
  { id: 4, name: 'Illegal Drugs', level: 'M' },
  { id: 5, name: 'Phishing/Fraud', level: 'L' },
  { id: 6, name: 'Spyware and Malicious Sites', level: 'L' },
  { id: 7, name: 'Nudity', level: 'M' },
  { id: 8, name: 'Mature', level: 'M' },
  { id: 9, name: 'Pornography/Sex', level: 'M' },
  { id: 10, name: 'Violence', level: 'M' },
  { id: 11, name: 'Weapons', level: 'M' },
  { id: 12, name: 'Anonymizer', level: 'L' },
  { id: 13, name: 'Computers and Technology', level: null },
  { id: 14, name: 'Download Sites', level: 'M' },
  { id: 15, name: 'Translator', level: null },
  { id: 16, name: 'Alcohol', level: 'H' },
  { id: 17, name: 'Health', level: null },
  { id: 18, name: 'Pharmacy', level: null },
  { id: 19, name: 'Tobacco', level: 'H' },
  { id: 20, name: 'Gambling', level: 'M' },
  { id: 21, name: 'Games', level: 'H' },
  { id: 22, name: 'Cars/Transportation', level: null },
  { id: 23, name: 'Dating', level: 'H' },
  { id: 24, name: 'Home/Leisure', level: null },
  { id: 25, name: 'Personal Webpages', level: 'H' },
  { id: 26, name: 'Restaurants', level: null },
  { id: 27, name: 'Sports and Recreation', level: null },
  { id: 28, name: 'Travel', level: null },
  { id: 29, name: 'Government', level: null },
  { id: 30, name: 'Military', level: null },
  { id: 31, name: 'Non-profits', level: null },
  { id: 32, name: 'Politics and Law', level: null },
  { id: 33, name: 'Religion', level: null },
  { id: 34, name: 'Education', level: null },
  { id: 35, name: 'Art', level: null },
  { id: 36, name: 'Entertainment and Videos', level: 'H' },
  { id: 37, name: 'Humor', level: 'H' },
  { id: 38, name: 'Music', level: 'H' },
  { id: 39, name: 'News', level: null },
  { id: 40, name: 'Finance', level: null },
  { id: 42, name: 'Shopping', level: null },
  { id: 43, name: 'Chat/IM', level: 'H' },
  { id: 44, name: 'Community Sites', level: 'H' },
  { id: 45, name: 'Social Networking', level: 'H' },
  { id: 46, name: 'Web-based Email', level: null },
  { id: 47, name: 'Portal Sites', level: null },
  { id: 48, name: 'Search Engines', level: null },
  { id: 49, name: 'Online Ads', level: 'M' },
  { id: 50, name: 'Business/Services', level: null },
  { id: 51, name: 'Job Search', level: null },
  { id: 52, name: 'Real Estate', level: null },
  { id: 53, name: 'Spam', level: 'L' },
  { id: 54, name: 'Miscellaneous', level: null },
];

export const UNCLASSIFIED_CATEGORY_ID = 0;

/** The highest category id; category sets can be held in arrays of this length + 1. */
export const MAX_CATEGORY_ID = 54;

/** Security categories (reports' malware and phishing; never bypassable by cloud keys): docs/architecture.md "Categories"; docs/architecture.md "Block page". */
export const SECURITY_CATEGORY_IDS: readonly number[] = [1, 5, 6, 53];

const CATEGORY_BY_ID = new Map(CATEGORIES.map((c) => [c.id, c]));

/** The category with this id, or undefined for an unused or out-of-range id. */
export function categoryById(id: number): Category | undefined {
  return CATEGORY_BY_ID.get(id);
}

/**
 * A policy's filtering level on the wire. `low`/`moderate`/`high` block the levels they nest
 * (spec-notes §4); `custom` is a hand-picked set. The spec's second set of names is an alias set:
 * Essential = low, Enhanced = moderate, Optimum = high (docs/architecture.md "Categories").
 */
export const FILTERING_LEVELS = ['low', 'moderate', 'high', 'custom'] as const;
export type FilteringLevel = (typeof FILTERING_LEVELS)[number];

/** Console labels of the filtering levels. */
export const FILTERING_LEVEL_LABELS: Readonly<Record<FilteringLevel, string>> = {
  low: 'Low (Essential)',
  moderate: 'Moderate (Enhanced)',
  high: 'High (Optimum)',
  custom: 'Custom',
};

const LEVELS_BLOCKED: Readonly<Record<Exclude<FilteringLevel, 'custom'>, readonly CategoryLevel[]>> = {
  low: ['L'],
  moderate: ['L', 'M'],
  high: ['L', 'M', 'H'],
};

/**
 * The category ids a protection level blocks, given each category's current level (the system
 * admin may edit levels; the edit applies to policies created afterwards only: spec-notes §4).
 * `custom` blocks nothing by itself. Result is sorted ascending.
 */
export function categoriesBlockedAt(
  level: FilteringLevel,
  categories: readonly Pick<Category, 'id' | 'level'>[] = CATEGORIES,
): number[] {
  if (level === 'custom') return [];
  const levels = LEVELS_BLOCKED[level];
  return categories
    .filter((c) => c.level !== null && levels.includes(c.level))
    .map((c) => c.id)
    .sort((a, b) => a - b);
}

/**
 * The level whose blocked set equals `blocked` exactly, else `custom`. Used after a category edit
 * so a policy keeps its named level while it still matches one.
 */
export function levelOfBlockedSet(
  blocked: readonly number[],
  categories: readonly Pick<Category, 'id' | 'level'>[] = CATEGORIES,
): FilteringLevel {
  const key = [...blocked].sort((a, b) => a - b).join(',');
  for (const level of ['low', 'moderate', 'high'] as const) {
    if (categoriesBlockedAt(level, categories).join(',') === key) return level;
  }
  return 'custom';
}
