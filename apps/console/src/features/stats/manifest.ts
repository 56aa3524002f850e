import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** The customer overview: today's numbers and the traffic chart (spec-notes §2 Customer). */
export const statsFeature = defineFeature({
  name: 'stats',
  routes: [
    {
      path: '/customer/overview',
      area: 'customer',
      titleKey: 'pages.customerOverview',
      page: () => import('./CustomerOverviewPage.tsx').then((m) => m.CustomerOverviewPage),
      menu: { labelKey: 'nav.overview', order: 10 },
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
