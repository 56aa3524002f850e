import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** Block-page branding (spec-notes §2): the customer's block page and the MSP's and system's global block pages. */
export const blockPageFeature = defineFeature({
  name: 'blockpage',
  routes: [
    {
      path: '/customer/content_filtering/block_page',
      area: 'customer',
      titleKey: 'pages.blockPage',
      page: () => import('./BlockPagePages.tsx').then((m) => m.CustomerBlockPagePage),
      menu: { labelKey: 'nav.blockPage', parent: 'contentFiltering', order: 30 },
    },
    {
      path: '/msp/global_settings/global_block_page',
      area: 'msp',
      titleKey: 'pages.globalBlockPage',
      page: () => import('./BlockPagePages.tsx').then((m) => m.MspGlobalBlockPagePage),
      menu: { labelKey: 'nav.globalBlockPage', parent: 'globalSettings', order: 40 },
    },
    {
      path: '/system/global_settings/global_block_page',
      area: 'system',
      titleKey: 'pages.globalBlockPage',
      page: () => import('./BlockPagePages.tsx').then((m) => m.SystemGlobalBlockPagePage),
      menu: { labelKey: 'nav.globalBlockPage', parent: 'globalSettings', order: 40 },
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
