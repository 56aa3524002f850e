import { CATEGORIES } from '@cordon/shared';
import { defineFeature } from '../../platform/manifest.ts';

/**
 * The category names (`categoryNames.<id>`, read by components/categoryName.ts): no page, only strings,
 * both from packages/shared, the one source the server's reports and mails read too (docs/decisions.md
 * "Category names in the reader's language"). English is the taxonomy's names; French is the shared
 * `i18n/fr.json`, imported dynamically like every part's French, so it builds into the `i18n-fr` chunk.
 */
export const categoriesFeature = defineFeature({
  name: 'categories',
  routes: [],
  messages: { en: { categoryNames: Object.fromEntries(CATEGORIES.map((c) => [String(c.id), c.name])) } },
  translations: { fr: () => import('@cordon/shared/i18n/fr.json') },
});
