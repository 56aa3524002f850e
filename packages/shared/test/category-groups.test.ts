import { describe, expect, it } from 'vitest';
import { CATEGORY_GROUPS, categoryGroupOf, groupedCategoryIds } from '../src/category-groups.ts';

describe('category groups (docs/categories.md "Category groups")', () => {
  it('puts every category but Unclassified in exactly one group', () => {
    const listed = CATEGORY_GROUPS.flatMap((g) => g.categoryIds);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort((a, b) => a - b)).toEqual(groupedCategoryIds());
    expect(categoryGroupOf(0)).toBeUndefined();
    expect(categoryGroupOf(41)).toBeUndefined();
  });

  it('keeps the security categories together', () => {
    for (const id of [1, 5, 6, 53]) expect(categoryGroupOf(id)).toBe('security');
    expect(categoryGroupOf(20)).toBe('harmful');
    expect(categoryGroupOf(45)).toBe('social');
  });
});
