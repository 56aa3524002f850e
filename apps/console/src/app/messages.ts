import { BASE_MESSAGES, type Language } from '../i18n/index.ts';
import { type MessageTree, mergeMessages } from '../i18n/messages.ts';
import type { FeatureManifest } from '../platform/manifest.ts';
import { FEATURES } from './features.ts';

/**
 * The console's strings by language (English, French): the shared ones of `i18n/` merged with
 * each feature's (the one place they are merged). A language a feature lacks falls back to English.
 * @throws Error at start-up when two parts define the same key
 */
export function buildMessages(
  features: readonly FeatureManifest[],
): Record<Language, MessageTree> & { en: MessageTree } {
  return {
    en: mergeMessages([BASE_MESSAGES.en, ...features.map((f) => f.messages.en)]),
    // A feature without French strings shows English (i18next's fallback) until it has them.
    fr: mergeMessages([BASE_MESSAGES.fr, ...features.map((f) => f.messages['fr'] ?? {})]),
  };
}

/** The merged strings of {@link FEATURES}. */
export const MESSAGES = buildMessages(FEATURES);
