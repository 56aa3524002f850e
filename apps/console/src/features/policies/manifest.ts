import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** The customer's policies and a policy's details and categories (spec §2 Customer, content filtering). */
export const policiesFeature = defineFeature({
  name: 'policies',
  routes: [
    {
      path: '/customer/content_filtering/policies',
      area: 'customer',
      titleKey: 'pages.policies',
      page: () => import('./PoliciesPage.tsx').then((m) => m.PoliciesPage),
      menu: { labelKey: 'nav.policies', parent: 'contentFiltering', order: 10 },
    },
    {
      path: '/customer/content_filtering/policies/:id',
      area: 'customer',
      titleKey: 'pages.policy',
      page: () => import('./PolicyDetailPage.tsx').then((m) => m.PolicyDetailPage),
    },
  ],
  messages: { en },
});
