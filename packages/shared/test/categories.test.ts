import { describe, expect, it } from 'vitest';
import {
  CATEGORIES,
  categoriesBlockedAt,
  categoryById,
  levelOfBlockedSet,
  SECURITY_CATEGORY_IDS,
} from '../src/categories.ts';

describe('category taxonomy (docs/architecture.md "Categories")', () => {
  it('has ids 0–54 without 41, each once', () => {
    const ids = CATEGORIES.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(54);
    expect(ids).not.toContain(41);
    expect(Math.max(...ids)).toBe(54);
    expect(categoryById(41)).toBeUndefined();
  });

  it('nests the protection levels: Low ⊂ Moderate ⊂ High (spec-notes §4)', () => {
    const low = categoriesBlockedAt('low');
    const moderate = categoriesBlockedAt('moderate');
    const high = categoriesBlockedAt('high');
    expect(low).toEqual([1, 2, 3, 5, 6, 12, 53]);
    expect(low.every((id) => moderate.includes(id))).toBe(true);
    expect(moderate.every((id) => high.includes(id))).toBe(true);
    expect(moderate).toContain(20);
    expect(low).not.toContain(20);
    expect(high).toContain(45);
    expect(moderate).not.toContain(45);
    expect(categoriesBlockedAt('custom')).toEqual([]);
    for (const id of SECURITY_CATEGORY_IDS) expect(low).toContain(id);
  });

  it('follows edited levels and names a blocked set by its level', () => {
    const edited = CATEGORIES.map((c) => (c.id === 45 ? { ...c, level: 'L' as const } : c));
    expect(categoriesBlockedAt('low', edited)).toContain(45);
    expect(levelOfBlockedSet(categoriesBlockedAt('moderate'))).toBe('moderate');
    expect(levelOfBlockedSet([...categoriesBlockedAt('moderate')].reverse())).toBe('moderate');
    expect(levelOfBlockedSet([20])).toBe('custom');
  });
});
