import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/**
 * The customer's policies and a policy's details, categories and category notifications (spec-notes §2 Customer, content filtering),
 * the customer's default policy (settings) and the MSP's and system's global default policies.
 */
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
    {
      path: '/customer/content_filtering/policies/:id/domains',
      area: 'customer',
      titleKey: 'pages.policy',
      page: () => import('./PolicyDetailPage.tsx').then((m) => m.PolicyDetailPage),
    },
    {
      path: '/customer/content_filtering/policies/:id/notifications',
      area: 'customer',
      titleKey: 'pages.policy',
      page: () => import('./PolicyDetailPage.tsx').then((m) => m.PolicyDetailPage),
    },
    {
      path: '/customer/content_filtering/policies/:id/locations',
      area: 'customer',
      titleKey: 'pages.policy',
      page: () => import('./PolicyDetailPage.tsx').then((m) => m.PolicyDetailPage),
    },
    {
      path: '/customer/content_filtering/policies/:id/devices',
      area: 'customer',
      titleKey: 'pages.policy',
      page: () => import('./PolicyDetailPage.tsx').then((m) => m.PolicyDetailPage),
    },
    {
      path: '/customer/settings/default_policy',
      area: 'customer',
      titleKey: 'pages.defaultPolicy',
      page: () => import('./DefaultPolicyPage.tsx').then((m) => m.DefaultPolicyPage),
      menu: { labelKey: 'nav.defaultPolicy', parent: 'settings', order: 20 },
    },
    {
      path: '/customer/settings/default_policy/domains',
      area: 'customer',
      titleKey: 'pages.defaultPolicy',
      page: () => import('./DefaultPolicyPage.tsx').then((m) => m.DefaultPolicyPage),
    },
    {
      path: '/customer/settings/default_policy/notifications',
      area: 'customer',
      titleKey: 'pages.defaultPolicy',
      page: () => import('./DefaultPolicyPage.tsx').then((m) => m.DefaultPolicyPage),
    },
    {
      path: '/customer/settings/default_policy/locations',
      area: 'customer',
      titleKey: 'pages.defaultPolicy',
      page: () => import('./DefaultPolicyPage.tsx').then((m) => m.DefaultPolicyPage),
    },
    {
      path: '/customer/settings/default_policy/devices',
      area: 'customer',
      titleKey: 'pages.defaultPolicy',
      page: () => import('./DefaultPolicyPage.tsx').then((m) => m.DefaultPolicyPage),
    },
    {
      path: '/msp/global_settings/global_default_policy',
      area: 'msp',
      titleKey: 'pages.globalDefaultPolicy',
      page: () => import('./GlobalDefaultPolicyPage.tsx').then((m) => m.MspGlobalDefaultPolicyPage),
      menu: { labelKey: 'nav.globalDefaultPolicy', parent: 'globalSettings', order: 50 },
    },
    {
      path: '/system/global_settings/global_default_policy',
      area: 'system',
      titleKey: 'pages.globalDefaultPolicy',
      page: () => import('./GlobalDefaultPolicyPage.tsx').then((m) => m.SystemGlobalDefaultPolicyPage),
      menu: { labelKey: 'nav.globalDefaultPolicy', parent: 'globalSettings', order: 50 },
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
