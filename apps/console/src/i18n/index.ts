import i18next, { type i18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from './en.json';
import fr from './fr.json';
import type { MessageTree } from './messages.ts';

/** The console's languages (issue 11: English and French), in the order the language pickers offer them. */
export const LANGUAGES = ['en', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Each language by its own name (a language is chosen in the language it is written in). */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = { en: 'English', fr: 'Français' };

/**
 * The strings every part of the console shares (app shell, common words, filtering levels, menu
 * labels of pages not built yet), by language. Features bring their own (`features/<name>/i18n`).
 */
export const BASE_MESSAGES: Readonly<Record<Language, MessageTree>> = { en, fr };

/**
 * The language to show for a stored `lang` (spec §3 browser-stored preferences; '' = the
 * browser's): a supported language, else English.
 */
export function pickLanguage(stored: string | null, browser: readonly string[] = []): Language {
  const wanted = stored && stored !== '' ? [stored] : browser;
  for (const tag of wanted) {
    const base = tag.toLowerCase().split('-')[0] as Language;
    if ((LANGUAGES as readonly string[]).includes(base)) return base;
  }
  return 'en';
}

/**
 * Creates the i18next instance for `lang` (from local storage `lang`), falling back to English
 * (docs/architecture.md "Console": English first; a second language is one more file per part).
 * @param messages the merged message tree of each shipped language; `en` is required
 */
export function createI18n(lang: string, messages: Readonly<Record<string, MessageTree>> & { en: MessageTree }): i18n {
  const instance = i18next.createInstance();
  const resources = Object.fromEntries(Object.entries(messages).map(([l, tree]) => [l, { translation: tree }]));
  void instance.use(initReactI18next).init({
    resources,
    lng: lang in messages ? lang : 'en',
    fallbackLng: 'en',
    interpolation: { escapeValue: false },
    initAsync: false,
    showSupportNotice: false,
  });
  return instance;
}
