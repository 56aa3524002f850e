import { describe, expect, it } from 'vitest';
import { FEATURES } from '../app/features.ts';
import { BASE_ENGLISH, BASE_TRANSLATIONS, pickLanguage } from './index.ts';
import { type MessageTree, messageKeys } from './messages.ts';

/** The `{{placeholders}}` of a string, sorted: a translation must keep every one. */
const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();

function stringAt(tree: MessageTree, key: string): string {
  let node: string | MessageTree | undefined = tree;
  for (const part of key.split('.')) node = typeof node === 'object' ? node[part] : undefined;
  return typeof node === 'string' ? node : '';
}

/** The parts that ship French, `[part, English, French]`: the shared strings and every feature's (each loaded as the console loads it). */
const PARTS: Array<[string, MessageTree, MessageTree]> = [
  ['i18n', BASE_ENGLISH, (await BASE_TRANSLATIONS.fr()).default],
  ...(await Promise.all(
    FEATURES.map(
      async (f): Promise<[string, MessageTree, MessageTree]> => [
        `features/${f.name}`,
        f.messages.en,
        (await f.translations.fr()).default,
      ],
    ),
  )),
];

describe('the French strings (issue 11: a second language, complete)', () => {
  it.each(PARTS)('%s has every English key, no other, with the same placeholders', (_part, en, fr) => {
    const enKeys = messageKeys(en);
    const frKeys = messageKeys(fr);
    expect(enKeys.filter((k) => !frKeys.includes(k))).toEqual([]);
    expect(frKeys.filter((k) => !enKeys.includes(k))).toEqual([]);
    const broken = enKeys.filter(
      (k) => JSON.stringify(placeholders(stringAt(en, k))) !== JSON.stringify(placeholders(stringAt(fr, k))),
    );
    expect(broken).toEqual([]);
  });

  it('is shipped by every feature (French complete, not only where a file happens to exist)', () => {
    expect(PARTS.filter(([, , fr]) => messageKeys(fr).length === 0).map(([part]) => part)).toEqual([]);
  });

  it('picks the stored language, else the browser’s, else English', () => {
    expect(pickLanguage('fr')).toBe('fr');
    expect(pickLanguage('', ['fr-CA', 'en-US'])).toBe('fr');
    expect(pickLanguage(null, ['de-DE'])).toBe('en');
    expect(pickLanguage('xx')).toBe('en');
  });
});
