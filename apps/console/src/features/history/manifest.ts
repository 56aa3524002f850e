import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** The query log for people: the customer's recent traffic and the history search (spec-notes §2, §7 history). */
export const historyFeature = defineFeature({
  name: 'history',
  routes: [
    {
      path: '/customer/recent_traffic',
      area: 'customer',
      titleKey: 'pages.recentTraffic',
      page: () => import('./RecentTrafficPage.tsx').then((m) => m.RecentTrafficPage),
      menu: { labelKey: 'nav.recentTraffic', order: 20 },
    },
    {
      path: '/customer/reporting/history_reports',
      area: 'customer',
      titleKey: 'pages.historyReports',
      page: () => import('./HistoryPage.tsx').then((m) => m.HistoryPage),
      menu: { labelKey: 'nav.historyReports', parent: 'reporting', order: 60 },
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
