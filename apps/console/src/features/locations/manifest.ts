import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** The customer's locations of every type and their id pages (spec-notes §2 Customer, environment). */
export const locationsFeature = defineFeature({
  name: 'locations',
  routes: [
    {
      path: '/customer/environment/locations',
      area: 'customer',
      titleKey: 'pages.locations',
      page: () => import('./LocationsPage.tsx').then((m) => m.LocationsPage),
      menu: { labelKey: 'nav.locations', parent: 'environment', order: 10 },
    },
    {
      path: '/customer/environment/locations/:type/:id',
      area: 'customer',
      titleKey: 'pages.location',
      page: () => import('./LocationDetailPage.tsx').then((m) => m.LocationDetailPage),
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
