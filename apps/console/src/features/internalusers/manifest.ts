import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** Internal users and a user's page (spec-notes §2 Customer, environment "users, user id"). */
export const internalUsersFeature = defineFeature({
  name: 'internalusers',
  routes: [
    {
      path: '/customer/environment/users',
      area: 'customer',
      titleKey: 'pages.internalUsers',
      page: () => import('./UsersPage.tsx').then((m) => m.UsersPage),
      menu: { labelKey: 'nav.users', parent: 'environment', order: 40 },
    },
    {
      path: '/customer/environment/users/:id',
      area: 'customer',
      titleKey: 'pages.internalUser',
      page: () => import('./UserDetailPage.tsx').then((m) => m.UserDetailPage),
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
