import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** `/profile`, `/profile/security` and `/profile/api-tokens`: the signed-in admin's account, 2FA and API tokens (spec-notes §2 userprofile layout; issue 26). */
export const profileFeature = defineFeature({
  name: 'profile',
  routes: [
    {
      path: '/profile',
      area: 'profile',
      titleKey: 'pages.profile',
      page: () => import('./ProfilePage.tsx').then((m) => m.ProfilePage),
      menu: { labelKey: 'nav.profile', order: 10 },
    },
    {
      path: '/profile/security',
      area: 'profile',
      titleKey: 'pages.profileSecurity',
      page: () => import('./SecurityPage.tsx').then((m) => m.SecurityPage),
      menu: { labelKey: 'nav.security', order: 20 },
    },
    {
      path: '/profile/api-tokens',
      area: 'profile',
      titleKey: 'pages.apiTokens',
      page: () => import('./ApiTokensPage.tsx').then((m) => m.ApiTokensPage),
      menu: { labelKey: 'nav.apiTokens', order: 30 },
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
