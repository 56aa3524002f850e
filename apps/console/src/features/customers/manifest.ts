import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** The MSP overview: the MSP's customers and "New customer" (spec §2 MSP). */
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
  ],
  messages: { en },
});
