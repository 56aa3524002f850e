import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** The MSP overview (its customers, "New customer", multi-delete) and the customer id page (spec-notes §2 MSP). */
export const customersFeature = defineFeature({
  name: 'customers',
  routes: [
    {
      path: '/msp/overview',
      area: 'msp',
      titleKey: 'pages.mspOverview',
      page: () => import('./MspOverviewPage.tsx').then((m) => m.MspOverviewPage),
      menu: { labelKey: 'nav.overview', order: 10 },
    },
    {
      path: '/msp/overview/:id',
      area: 'msp',
      titleKey: 'pages.customer',
      page: () => import('./CustomerDetailPage.tsx').then((m) => m.CustomerDetailPage),
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
