import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** Login at `/` (or the role's home once logged in) and `/logout` (spec §2 "Other: logout"). */
export const authFeature = defineFeature({
  name: 'auth',
  routes: [
    {
      path: '/',
      area: 'blank',
      titleKey: 'pages.login',
      page: () => import('./RootPage.tsx').then((m) => m.RootPage),
    },
    {
      path: '/logout',
      area: 'none',
      titleKey: 'pages.logout',
      page: () => import('./LogoutPage.tsx').then((m) => m.LogoutPage),
    },
  ],
  messages: { en },
});
