import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** The MSP list: the system overview (with "New MSP") and the sales list (spec §2 System, Sales). */
export const mspsFeature = defineFeature({
  name: 'msps',
  routes: [
    {
      path: '/system/overview',
      area: 'system',
      titleKey: 'pages.systemOverview',
      page: () => import('./SystemOverviewPage.tsx').then((m) => m.SystemOverviewPage),
      menu: { labelKey: 'nav.overview', order: 10 },
    },
    {
      path: '/sales/msps',
      area: 'sales',
      titleKey: 'pages.salesMsps',
      page: () => import('./SalesMspsPage.tsx').then((m) => m.SalesMspsPage),
      menu: { labelKey: 'nav.msps', order: 10 },
    },
  ],
  messages: { en },
});
