import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/**
 * The customer's static routes (conditional forwarding, spec-notes §7 `/staticroutes`). The spec names no
 * page; it lives under the customer's settings (docs/decisions.md "Static routes").
 */
export const staticRoutesFeature = defineFeature({
  name: 'staticroutes',
  routes: [
    {
      path: '/customer/settings/static_routes',
      area: 'customer',
      titleKey: 'pages.staticRoutes',
      page: () => import('./StaticRoutesPage.tsx').then((m) => m.StaticRoutesPage),
      menu: { labelKey: 'nav.staticRoutes', parent: 'settings', order: 70 },
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
