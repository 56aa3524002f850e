import { useEffect, useLayoutEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { LANGUAGE_NAMES, LANGUAGES, type Language, pickLanguage } from '../i18n/index.ts';
import { StorageKeys } from '../session/session.ts';
import { DeferredSelect } from './Deferred.tsx';

/**
 * Switches the console's strings to `lang`. A language other than English is fetched first
 * (`createI18n`'s backend): the page keeps its language until the new one's strings are in, then
 * switches in one render.
 */
function apply(i18n: ReturnType<typeof useTranslation>['i18n'], lang: Language): void {
  if (i18n.language !== lang) void i18n.changeLanguage(lang);
}

/**
 * The header's language picker (issue 11: English and French): stores the choice as `lang`
 * (spec-notes §3 browser-stored preferences) and switches at once. It also follows a `lang` the profile
 * page stored, on the next navigation.
 */
export function LanguagePicker() {
  const { t, i18n } = useTranslation();
  const { pathname } = useLocation();
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-read the stored choice on each navigation
  useEffect(() => {
    apply(i18n, pickLanguage(window.localStorage.getItem(StorageKeys.lang), navigator.languages));
  }, [pathname, i18n]);
  // The page's `lang` attribute (WCAG 3.1.1) is the language the strings render in, set in the same
  // commit as they are. `i18n` is react-i18next's per-language snapshot, so its `language` is the one
  // rendered (a promise of `changeLanguage` would hold an older snapshot).
  useLayoutEffect(() => {
    document.documentElement.lang = i18n.language;
  }, [i18n.language]);
  return (
    <DeferredSelect
      aria-label={t('app.language')}
      data={LANGUAGES.map((l) => ({ value: l, label: LANGUAGE_NAMES[l] }))}
      value={pickLanguage(i18n.language)}
      allowDeselect={false}
      onChange={(value) => {
        if (!value) return;
        window.localStorage.setItem(StorageKeys.lang, value);
        // Even when `value` is the language shown: English chosen back while French is still being
        // fetched must win over it (i18next switches to the last language asked for).
        void i18n.changeLanguage(value);
      }}
      size="xs"
      w={110}
      comboboxProps={{ withinPortal: true }}
      data-testid="language-picker"
    />
  );
}
