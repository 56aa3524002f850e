import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** `/profile`: the signed-in user's account (spec §2 userprofile layout). */
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
  ],
  messages: { en },
});
