import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/**
 * Domain lists (spec-notes §2, §7 Domains): the customer's policy lists and an entry's page, and the MSP's
 * and system's global lists and their entry pages. The list view itself is shared
 * (`components/domainList`), so the policy page's domains tab shows the same one.
 */
export const domainsFeature = defineFeature({
  name: 'domains',
  routes: [
    {
      path: '/customer/content_filtering/domains',
      area: 'customer',
      titleKey: 'pages.domains',
      page: () => import('./CustomerDomainsPage.tsx').then((m) => m.CustomerDomainsPage),
      menu: { labelKey: 'nav.domains', parent: 'contentFiltering', order: 20 },
    },
    {
      path: '/customer/content_filtering/domains/:id',
      area: 'customer',
      titleKey: 'pages.domain',
      page: () => import('./DomainEntryPage.tsx').then((m) => m.CustomerDomainEntryPage),
    },
    {
      path: '/msp/global_settings/global_domains',
      area: 'msp',
      titleKey: 'pages.globalDomains',
      page: () => import('./GlobalDomainsPage.tsx').then((m) => m.MspGlobalDomainsPage),
      menu: { labelKey: 'nav.globalDomains', parent: 'globalSettings', order: 60 },
    },
    {
      path: '/msp/global_settings/global_domains/:id',
      area: 'msp',
      titleKey: 'pages.globalDomain',
      page: () => import('./DomainEntryPage.tsx').then((m) => m.MspGlobalDomainEntryPage),
    },
    {
      path: '/system/global_settings/global_domains',
      area: 'system',
      titleKey: 'pages.globalDomains',
      page: () => import('./GlobalDomainsPage.tsx').then((m) => m.SystemGlobalDomainsPage),
      menu: { labelKey: 'nav.globalDomains', parent: 'globalSettings', order: 60 },
    },
    {
      path: '/system/global_settings/global_domains/:id',
      area: 'system',
      titleKey: 'pages.globalDomain',
      page: () => import('./DomainEntryPage.tsx').then((m) => m.SystemGlobalDomainEntryPage),
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
