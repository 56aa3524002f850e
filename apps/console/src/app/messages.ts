import { BASE_MESSAGES } from '../i18n/index.ts';
import { type MessageTree, mergeMessages } from '../i18n/messages.ts';
import type { FeatureManifest } from '../platform/manifest.ts';
import { FEATURES } from './features.ts';

/**
 * The console's strings by language: the shared ones of `i18n/` merged with each feature's
 * (the one place they are merged). A language a feature lacks falls back to English.
 * @throws Error at start-up when two parts define the same key
 */
export function buildMessages(features: readonly FeatureManifest[]): { en: MessageTree } {
  return { en: mergeMessages([BASE_MESSAGES.en, ...features.map((f) => f.messages.en)]) };
}

/** The merged strings of {@link FEATURES}. */
export const MESSAGES = buildMessages(FEATURES);
