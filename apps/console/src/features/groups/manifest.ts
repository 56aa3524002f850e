import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** Groups, a group's page and the group ranking (spec-notes §2 Customer, environment "groups, group id, group ranking"). */
export const groupsFeature = defineFeature({
  name: 'groups',
  routes: [
    {
      path: '/customer/environment/groups',
      area: 'customer',
      titleKey: 'pages.groups',
      page: () => import('./GroupsPage.tsx').then((m) => m.GroupsPage),
      menu: { labelKey: 'nav.groups', parent: 'environment', order: 30 },
    },
    {
      path: '/customer/environment/groups/:id',
      area: 'customer',
      titleKey: 'pages.group',
      page: () => import('./GroupDetailPage.tsx').then((m) => m.GroupDetailPage),
    },
    {
      path: '/customer/environment/groups-ranking',
      area: 'customer',
      titleKey: 'pages.groupRanking',
      page: () => import('./GroupRankingPage.tsx').then((m) => m.GroupRankingPage),
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
