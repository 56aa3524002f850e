import { CATEGORIES, categoriesBlockedAt } from '@cordon/shared';
import { describe, expect, it } from 'vitest';
import { baseLevelOf, differenceCount, groupCategories, levelSet, sameSet, setAll } from './policyEditorModel.ts';

const cats = CATEGORIES.map((c) => ({ id: c.id, name: c.name, level: c.level }));

describe('policy editor model (docs/categories.md "The policy editor")', () => {
  it('groups every category but Unclassified once', () => {
    const groups = groupCategories(cats);
    const ids = groups.flatMap((g) => g.categories.map((c) => c.id));
    expect(ids).toHaveLength(53);
    expect(new Set(ids).size).toBe(53);
    expect(ids).not.toContain(0);
    expect(groups[0]!.id).toBe('security');
  });

  it('compares a named level with itself, a Custom set with the closest level', () => {
    const moderate = levelSet('moderate', cats);
    expect([...moderate].sort((a, b) => a - b)).toEqual(categoriesBlockedAt('moderate'));
    expect(baseLevelOf('high', moderate, cats)).toBe('high');
    const custom = setAll(moderate, [45], true);
    expect(baseLevelOf('custom', custom, cats)).toBe('moderate');
    expect(differenceCount(custom, moderate, cats)).toBe(1);
    expect(baseLevelOf('custom', new Set(), cats)).toBe('low');
  });

  it('blocks and allows a whole group', () => {
    const adult = [7, 8, 9, 23];
    const blocked = setAll(new Set([1]), adult, true);
    expect(sameSet(blocked, new Set([1, 7, 8, 9, 23]))).toBe(true);
    expect(sameSet(setAll(blocked, adult, false), new Set([1]))).toBe(true);
  });
});
