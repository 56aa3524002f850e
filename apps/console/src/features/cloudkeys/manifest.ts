import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** The customer's cloud keys and a key's page (spec-notes §2 Customer, content filtering "cloud keys and key id"). */
export const cloudKeysFeature = defineFeature({
  name: 'cloudkeys',
  routes: [
    {
      path: '/customer/content_filtering/cloud_keys',
      area: 'customer',
      titleKey: 'pages.cloudKeys',
      page: () => import('./CloudKeysPage.tsx').then((m) => m.CloudKeysPage),
      menu: { labelKey: 'nav.cloudKeys', parent: 'contentFiltering', order: 40 },
    },
    {
      path: '/customer/content_filtering/cloud_keys/:id',
      area: 'customer',
      titleKey: 'pages.cloudKey',
      page: () => import('./CloudKeyDetailPage.tsx').then((m) => m.CloudKeyDetailPage),
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
