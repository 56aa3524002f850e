import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** The customer's locations and "New location" (static IP) (spec §2 Customer, environment). */
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
  ],
  messages: { en },
});
