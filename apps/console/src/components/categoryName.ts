import { categoryById } from '@cordon/shared';
import type { TFunction } from 'i18next';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * A category's name in the interface language (issue 29 "French complete, category names
 * included"). The names live in the base catalogues under `categoryNames.<id>` (English in the
 * first load, French in the French chunk); an id the catalogues lack shows the shared catalogue's
 * English name, else the name the API gave (`fallback`), else `#<id>`.
 * @param t the console's translation function
 * @param id the category id (0–54, docs/architecture.md "Categories")
 * @param fallback a name to show when the id is unknown to both catalogues (e.g. an API's `category_name`)
 */
export function categoryLabel(t: TFunction, id: number, fallback?: string): string {
  const english = categoryById(id)?.name ?? fallback ?? `#${id}`;
  return t(`categoryNames.${id}`, { defaultValue: english });
}

/** {@link categoryLabel} bound to the current language; re-renders when the language changes. */
export function useCategoryName(): (id: number, fallback?: string) => string {
  const { t } = useTranslation();
  return useCallback((id: number, fallback?: string) => categoryLabel(t, id, fallback), [t]);
}
