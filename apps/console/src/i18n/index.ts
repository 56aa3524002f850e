import i18next, { type BackendModule, type i18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from './en.json';
import type { MessageTree } from './messages.ts';

/** The console's languages (issue 11: English and French), in the order the language pickers offer them. */
export const LANGUAGES = ['en', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];

/**
 * The languages loaded on demand: every one but English, which is in the first load and is the
 * fallback of any string a translation lacks (bench/README.md "Console first load").
 */
export type TranslatedLanguage = Exclude<Language, 'en'>;

/** Each language by its own name (a language is chosen in the language it is written in). */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = { en: 'English', fr: 'Français' };

/**
 * Loads one part's strings in a language other than English: a dynamic `import()` of its JSON
 * file, so the strings are fetched only when the language is chosen.
 */
export type MessageImport = () => Promise<{ default: MessageTree }>;

/**
 * The strings every part of the console shares (app shell, common words, filtering levels, menu
 * labels of pages not built yet), in English. Features bring their own (`features/<name>/i18n`).
 */
export const BASE_ENGLISH: MessageTree = en;

/** The shared strings of {@link BASE_ENGLISH} in each other language, loaded on demand. */
export const BASE_TRANSLATIONS: Readonly<Record<TranslatedLanguage, MessageImport>> = {
  fr: () => import('./fr.json'),
};

/**
 * Loads every string of a language other than English, merged into one tree.
 * @throws (rejects) when a part cannot be fetched (network, a new version installed meanwhile)
 */
export type TranslationLoader = (lang: TranslatedLanguage) => Promise<MessageTree>;

/** True for the languages a {@link TranslationLoader} loads: every supported one but English. */
function isTranslated(lang: string): lang is TranslatedLanguage {
  return lang !== 'en' && (LANGUAGES as readonly string[]).includes(lang);
}

/**
 * The language to show for a stored `lang` (spec-notes §3 browser-stored preferences; '' = the
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
 * Creates the console's i18next instance, in English and ready at once (docs/architecture.md
 * "Console": English first; a second language is one more file per part). Another language's
 * strings are fetched by `load` the first time `changeLanguage` asks for it (an i18next backend);
 * `changeLanguage` resolves, and the language changes, only once they are in, so a switch shows the
 * new language in one step: no key and no half-translated page meanwhile. If they cannot be
 * fetched (after two retries), the language still changes and every string shows in English.
 * @param english the merged English message tree of every part
 * @param load the strings of a language other than English
 */
export function createI18n(english: MessageTree, load: TranslationLoader): i18n {
  const backend: BackendModule = {
    type: 'backend',
    init() {},
    read(language, _namespace, callback) {
      // English is given below; an unsupported language has nothing to load (English shows).
      if (!isTranslated(language)) return callback(null, {});
      // `true`: i18next retries a failed fetch (350 ms, then 700 ms) before falling back to English.
      load(language).then(
        (tree) => callback(null, tree),
        (error: Error) => callback(error, true),
      );
    },
  };
  const instance = i18next.createInstance();
  void instance
    .use(backend)
    .use(initReactI18next)
    .init({
      resources: { en: { translation: english } },
      // English is bundled; the backend loads the others.
      partialBundledLanguages: true,
      maxRetries: 2,
      lng: 'en',
      fallbackLng: 'en',
      supportedLngs: [...LANGUAGES],
      interpolation: { escapeValue: false },
      initAsync: false,
      showSupportNotice: false,
    });
  return instance;
}
