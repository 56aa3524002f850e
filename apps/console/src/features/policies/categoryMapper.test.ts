import { describe, expect, it } from 'vitest';
import { categoryFromWire, categoryToWire } from './categoryMapper.ts';

describe('category allowed flag flip (spec-notes §3, §4)', () => {
  it('reads wire allowed=true as blocked on screen', () => {
    expect(categoryFromWire({ id: 9, name: 'Pornography/Sex', level: 'M', allowed: true })).toEqual({
      id: 9,
      name: 'Pornography/Sex',
      level: 'M',
      allowed: false,
    });
    expect(categoryFromWire({ id: 39, allowed: false }).allowed).toBe(true);
  });

  it('fills name and level from the taxonomy when the wire omits them', () => {
    expect(categoryFromWire({ id: 1, allowed: true })).toMatchObject({ name: 'Compromised', level: 'L' });
  });

  it('writes screen allowed=true as wire allowed=false', () => {
    expect(categoryToWire({ id: 9, allowed: true })).toEqual({ id: 9, allowed: false });
    expect(categoryToWire({ id: 9, allowed: false })).toEqual({ id: 9, allowed: true });
  });

  it('round-trips', () => {
    for (const allowed of [true, false]) {
      expect(categoryToWire(categoryFromWire({ id: 5, allowed }))).toEqual({ id: 5, allowed });
    }
  });
});

describe('a level set to none by the system admin (spec-notes §4)', () => {
  it('keeps a null wire level instead of the built-in one', () => {
    expect(categoryFromWire({ id: 21, name: 'Games', level: null, allowed: false }).level).toBeNull();
    expect(categoryFromWire({ id: 21, allowed: false }).level).toBe('H');
  });
});
