import { BASE_ENGLISH, BASE_TRANSLATIONS, type TranslatedLanguage } from '../i18n/index.ts';
import { type MessageTree, mergeMessages } from '../i18n/messages.ts';
import type { FeatureManifest } from '../platform/manifest.ts';
import { FEATURES } from './features.ts';

/**
 * The console's English strings: the shared ones of `i18n/` merged with each feature's (the one
 * place they are merged). They are in the first load; every other language falls back to them.
 * @throws Error at start-up when two parts define the same key
 */
export function buildEnglish(features: readonly FeatureManifest[]): MessageTree {
  return mergeMessages([BASE_ENGLISH, ...features.map((f) => f.messages.en)]);
}

/**
 * Fetches and merges the strings of `lang` (French): the shared ones of `i18n/` and each feature's,
 * every file a dynamic import (one chunk for the language: `manualChunks` in vite.config.ts), so a
 * console shown in English never downloads them (bench/README.md "Console first load").
 * @throws Error (rejects) when a file cannot be fetched, or when two parts define the same key
 */
export async function loadTranslation(
  lang: TranslatedLanguage,
  features: readonly FeatureManifest[],
): Promise<MessageTree> {
  const parts = await Promise.all([BASE_TRANSLATIONS[lang](), ...features.map((f) => f.translations[lang]())]);
  return mergeMessages(parts.map((m) => m.default));
}

/** The merged English strings of {@link FEATURES}. */
export const ENGLISH = buildEnglish(FEATURES);

/** {@link loadTranslation} of {@link FEATURES}. */
export const loadFeatureTranslation = (lang: TranslatedLanguage): Promise<MessageTree> =>
  loadTranslation(lang, FEATURES);
