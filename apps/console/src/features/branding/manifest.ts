import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

const pages = () => import('./BrandingPages.tsx');

/**
 * Interface branding and support contacts (spec-notes §2 global settings "interface" and "support",
 * customer settings "support"; spec-notes §7 `/ui/interface`, `/ui/support`).
 */
export const brandingFeature = defineFeature({
  name: 'branding',
  routes: [
    {
      path: '/msp/global_settings/interface',
      area: 'msp',
      titleKey: 'pages.interface',
      page: () => pages().then((m) => m.MspInterfacePage),
      menu: { labelKey: 'nav.interface', order: 30, parent: 'globalSettings' },
    },
    {
      path: '/system/global_settings/interface',
      area: 'system',
      titleKey: 'pages.interface',
      page: () => pages().then((m) => m.SystemInterfacePage),
      menu: { labelKey: 'nav.interface', order: 85, parent: 'globalSettings' },
    },
    {
      path: '/msp/global_settings/support',
      area: 'msp',
      titleKey: 'pages.support',
      page: () => pages().then((m) => m.MspSupportPage),
      menu: { labelKey: 'nav.support', order: 90, parent: 'globalSettings' },
    },
    {
      path: '/system/global_settings/support',
      area: 'system',
      titleKey: 'pages.support',
      page: () => pages().then((m) => m.SystemSupportPage),
      menu: { labelKey: 'nav.support', order: 90, parent: 'globalSettings' },
    },
    {
      path: '/customer/settings/support',
      area: 'customer',
      titleKey: 'pages.support',
      page: () => pages().then((m) => m.CustomerSupportPage),
      menu: { labelKey: 'nav.support', order: 80, parent: 'settings' },
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
