import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** `/profile` and `/profile/security`: the signed-in admin's account and 2FA (spec §2 userprofile layout). */
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
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
