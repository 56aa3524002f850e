import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

const detail = () => import('./MspDetailPage.tsx');
const breakdown = () => import('./BreakdownPage.tsx');

/**
 * The MSPs: the system overview (dashboard, MSP list, "New MSP", multi-delete) and its MSP id page,
 * and the sales area's read-only list and MSP id page (spec-notes §2 System, Sales).
 */
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
      path: '/system/overview/breakdown',
      area: 'system',
      titleKey: 'pages.breakdown',
      page: () => breakdown().then((m) => m.SystemBreakdownPage),
    },
    {
      // Beside the customers feature's `/msp/overview/:id`: the router ranks the static segment first.
      path: '/msp/overview/breakdown',
      area: 'msp',
      titleKey: 'pages.breakdown',
      page: () => breakdown().then((m) => m.MspBreakdownPage),
    },
    {
      path: '/system/overview/:id',
      area: 'system',
      titleKey: 'pages.msp',
      page: () => detail().then((m) => m.SystemMspPage),
    },
    {
      path: '/sales/msps',
      area: 'sales',
      titleKey: 'pages.salesMsps',
      page: () => import('./SalesMspsPage.tsx').then((m) => m.SalesMspsPage),
      menu: { labelKey: 'nav.msps', order: 10 },
    },
    {
      path: '/sales/msps/:id',
      area: 'sales',
      titleKey: 'pages.msp',
      page: () => detail().then((m) => m.SalesMspPage),
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
