import i18next, { type i18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from './en.json';

/** Languages the console ships (DESIGN.md §12: English first; a second language is one more file). */
export const LANGUAGES = { en } as const;

/** Creates the i18next instance for `lang` (from local storage `lang`), falling back to English. */
export function createI18n(lang: string): i18n {
  const instance = i18next.createInstance();
  void instance.use(initReactI18next).init({
    resources: { en: { translation: en } },
    lng: lang in LANGUAGES ? lang : 'en',
    fallbackLng: 'en',
    interpolation: { escapeValue: false },
    initAsync: false,
    showSupportNotice: false,
  });
  return instance;
}
