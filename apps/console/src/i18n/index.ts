import i18next, { type i18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from './en.json';
import type { MessageTree } from './messages.ts';

/**
 * The strings every part of the console shares (app shell, common words, filtering levels, menu
 * labels of pages not built yet), by language. Features bring their own (`features/<name>/i18n`).
 */
export const BASE_MESSAGES: Readonly<Record<'en', MessageTree>> = { en };

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
