import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/**
 * Category feeds (docs/api.md "Category feeds"): the system admin's feed sources besides UT1. The spec
 * names no page; it sits with the system's global settings (docs/decisions.md "Category feeds").
 */
export const feedsFeature = defineFeature({
  name: 'feeds',
  routes: [
    {
      path: '/system/global_settings/category_feeds',
      area: 'system',
      titleKey: 'pages.categoryFeeds',
      page: () => import('./FeedsPage.tsx').then((m) => m.FeedsPage),
      menu: { labelKey: 'nav.categoryFeeds', parent: 'globalSettings', order: 75 },
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
