import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** Device exceptions and their rules (spec-notes §2 Customer, settings "device exceptions with exception rules"). */
export const deviceExceptionsFeature = defineFeature({
  name: 'deviceexceptions',
  routes: [
    {
      path: '/customer/settings/device_exceptions',
      area: 'customer',
      titleKey: 'pages.deviceExceptions',
      page: () => import('./ExceptionsPage.tsx').then((m) => m.ExceptionsPage),
      menu: { labelKey: 'nav.deviceExceptions', parent: 'settings', order: 50 },
    },
    {
      path: '/customer/settings/device_exceptions/:id',
      area: 'customer',
      titleKey: 'pages.deviceException',
      page: () => import('./ExceptionDetailPage.tsx').then((m) => m.ExceptionDetailPage),
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
