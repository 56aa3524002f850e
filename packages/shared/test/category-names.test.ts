import { describe, expect, it } from 'vitest';
import { CATEGORIES } from '../src/categories.ts';
import { acceptedNameLanguage, categoryNameIn, FRENCH_CATEGORY_NAMES, nameLanguage } from '../src/category-names.ts';

describe('category names in the reader’s language (issue 29)', () => {
  it('has a French name for every category of the taxonomy, and no other', () => {
    expect(Object.keys(FRENCH_CATEGORY_NAMES).sort()).toEqual(CATEGORIES.map((c) => String(c.id)).sort());
    expect(categoryNameIn('fr', 20)).toBe('Jeux d’argent');
    expect(categoryNameIn('en', 20)).toBe('Gambling');
  });

  it('falls back to the English name, then the given name, then #id', () => {
    expect(categoryNameIn('fr', 99, 'New category')).toBe('New category');
    expect(categoryNameIn('en', 41)).toBe('#41');
  });

  it('maps a stored language to a language of names: French variants to French, the rest to English', () => {
    expect(nameLanguage('fr')).toBe('fr');
    expect(nameLanguage('fr-CA')).toBe('fr');
    expect(nameLanguage('')).toBe('en');
    expect(nameLanguage(null)).toBe('en');
    expect(nameLanguage('de')).toBe('en');
  });

  it('reads Accept-Language by q, then order; null when it names no supported language', () => {
    expect(acceptedNameLanguage('fr-CA,en;q=0.8')).toBe('fr');
    expect(acceptedNameLanguage('de-DE,en;q=0.5,fr;q=0.9')).toBe('fr');
    expect(acceptedNameLanguage('fr;q=0,en')).toBe('en');
    expect(acceptedNameLanguage('de, *')).toBeNull();
    expect(acceptedNameLanguage(undefined)).toBeNull();
  });
});
