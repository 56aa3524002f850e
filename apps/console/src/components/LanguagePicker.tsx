import { Select } from '@mantine/core';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { LANGUAGE_NAMES, LANGUAGES, type Language, pickLanguage } from '../i18n/index.ts';
import { StorageKeys } from '../session/session.ts';

/** Shows `lang`: the console's strings and the page's `lang` attribute (WCAG 3.1.1). */
function apply(i18n: ReturnType<typeof useTranslation>['i18n'], lang: Language): void {
  if (i18n.language !== lang) void i18n.changeLanguage(lang);
  document.documentElement.lang = lang;
}

/**
 * The header's language picker (issue 11: English and French): stores the choice as `lang`
 * (spec §3 browser-stored preferences) and switches at once. It also follows a `lang` the profile
 * page stored, on the next navigation.
 */
export function LanguagePicker() {
  const { t, i18n } = useTranslation();
  const { pathname } = useLocation();
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-read the stored choice on each navigation
  useEffect(() => {
    apply(i18n, pickLanguage(window.localStorage.getItem(StorageKeys.lang), navigator.languages));
  }, [pathname, i18n]);
  return (
    <Select
      aria-label={t('app.language')}
      data={LANGUAGES.map((l) => ({ value: l, label: LANGUAGE_NAMES[l] }))}
      value={pickLanguage(i18n.language)}
      allowDeselect={false}
      onChange={(value) => {
        if (!value) return;
        window.localStorage.setItem(StorageKeys.lang, value);
        apply(i18n, value as Language);
      }}
      size="xs"
      w={110}
      comboboxProps={{ withinPortal: true }}
      data-testid="language-picker"
    />
  );
}
