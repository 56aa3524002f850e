import { CATEGORIES, type TestCategoryResult } from '@cordon/shared';
import { MantineProvider } from '@mantine/core';
import type { i18n } from 'i18next';
import { renderToString } from 'react-dom/server';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import { ENGLISH, loadFeatureTranslation } from '../app/messages.ts';
import { categoriesFeature } from '../features/categories/manifest.ts';
import { ResultView } from '../features/tools/TestCategoryPanel.tsx';
import { createI18n } from '../i18n/index.ts';
import type { MessageTree } from '../i18n/messages.ts';
import { categoryLabel } from './categoryName.ts';

// The names come from packages/shared (the one source the server's reports read too), merged as the console merges every part.
const FRENCH = await loadFeatureTranslation('fr');
const names = (tree: MessageTree) => tree['categoryNames'] as Record<string, string>;

describe('category names in the interface language (issue 29 "French complete, category names included")', () => {
  it('has an English and a French name for every category of the shared catalogue, and no other', () => {
    const ids = CATEGORIES.map((c) => String(c.id)).sort();
    expect(Object.keys(names(ENGLISH)).sort()).toEqual(ids);
    expect(Object.keys(names(FRENCH)).sort()).toEqual(ids);
    for (const c of CATEGORIES) {
      expect(names(ENGLISH)[String(c.id)]).toBe(c.name);
      expect(names(FRENCH)[String(c.id)]?.trim()).not.toBe('');
    }
    // Most names differ in French (a few, such as "Violence" or "Spam", are the same word).
    const translated = CATEGORIES.filter((c) => names(FRENCH)[String(c.id)] !== c.name);
    expect(translated.length).toBeGreaterThan(40);
    expect(names(categoriesFeature.messages.en)['20']).toBe('Gambling');
  });

  it('names a category in the current language; an unknown id by the API name, else #id', async () => {
    const instance = createI18n(ENGLISH, loadFeatureTranslation);
    expect(categoryLabel(instance.t, 20)).toBe('Gambling');
    expect(categoryLabel(instance.t, 99, 'New category')).toBe('New category');
    expect(categoryLabel(instance.t, 41)).toBe('#41');
    await instance.changeLanguage('fr');
    expect(categoryLabel(instance.t, 20)).toBe('Jeux d’argent');
    expect(categoryLabel(instance.t, 5, 'Phishing/Fraud')).toBe('Hameçonnage et fraude');
  });
});

const RESULT: TestCategoryResult = {
  domain: 'casino.example',
  categories: [
    { id: 20, name: 'Gambling' },
    { id: 45, name: 'Social Networking' },
  ],
  policy: { id: 1, name: 'Default' },
  action: 'blocked',
  reason: 'category',
  forward_to: null,
};

function badges(instance: i18n): string[] {
  const html = renderToString(
    <MantineProvider>
      <I18nextProvider i18n={instance}>
        <ResultView result={RESULT} />
      </I18nextProvider>
    </MantineProvider>,
  );
  return [...html.matchAll(/data-category-id="\d+"[^>]*>(?:<[^>]*>)*([^<]+)</g)].map((m) => m[1]!);
}

describe('the test-categorisation answer (tools)', () => {
  it('shows the category names in English, then in French once the language is French', async () => {
    const instance = createI18n(ENGLISH, loadFeatureTranslation);
    expect(badges(instance)).toEqual(['Gambling', 'Social Networking']);
    await instance.changeLanguage('fr');
    expect(badges(instance)).toEqual(['Jeux d’argent', 'Réseaux sociaux']);
  });
});
