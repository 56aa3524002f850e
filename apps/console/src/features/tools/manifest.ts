import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

const pages = () => import('./ToolsPages.tsx');

/**
 * Tools (spec-notes §2 "tools" at customer, MSP and system level with their secondary navigation; spec-notes §7
 * `POST /tools/test/category`, `POST /tools/recategorize`).
 */
export const toolsFeature = defineFeature({
  name: 'tools',
  routes: [
    {
      path: '/customer/settings/tools',
      area: 'customer',
      titleKey: 'pages.tools',
      page: () => pages().then((m) => m.CustomerToolsPage),
      menu: { labelKey: 'nav.tools', order: 30, parent: 'settings' },
    },
    {
      path: '/msp/global_settings/tools',
      area: 'msp',
      titleKey: 'pages.tools',
      page: () => pages().then((m) => m.MspToolsPage),
      menu: { labelKey: 'nav.tools', order: 70, parent: 'globalSettings' },
    },
    {
      path: '/system/global_settings/tools',
      area: 'system',
      titleKey: 'pages.tools',
      page: () => pages().then((m) => m.SystemToolsPage),
      menu: { labelKey: 'nav.tools', order: 70, parent: 'globalSettings' },
    },
    {
      path: '/customer/settings/tools/recategorize_domain',
      area: 'customer',
      titleKey: 'pages.tools',
      page: () => pages().then((m) => m.CustomerRecategorizePage),
    },
    {
      path: '/msp/global_settings/tools/recategorize_domain',
      area: 'msp',
      titleKey: 'pages.tools',
      page: () => pages().then((m) => m.MspRecategorizePage),
    },
    {
      path: '/system/global_settings/tools/recategorize_domain',
      area: 'system',
      titleKey: 'pages.tools',
      page: () => pages().then((m) => m.SystemRecategorizePage),
    },
    {
      path: '/msp/global_settings/tools/dns_lookup',
      area: 'msp',
      titleKey: 'pages.tools',
      page: () => pages().then((m) => m.MspDnsLookupPage),
    },
    {
      path: '/system/global_settings/tools/dns_lookup',
      area: 'system',
      titleKey: 'pages.tools',
      page: () => pages().then((m) => m.SystemDnsLookupPage),
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
