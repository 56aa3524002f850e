import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

const page = () => import('./CertificatesPage.tsx').then((m) => m.CertificatesPage);

/**
 * The root CA certificate download with install steps (spec-notes §2 `certificates` at customer, MSP and
 * system level; docs/architecture.md "Block page"), one page for the three areas.
 */
export const certificatesFeature = defineFeature({
  name: 'certificates',
  routes: [
    {
      path: '/system/global_settings/certificates',
      area: 'system',
      titleKey: 'pages.certificates',
      page,
      menu: { labelKey: 'nav.certificates', parent: 'globalSettings', order: 80 },
    },
    {
      path: '/msp/global_settings/certificates',
      area: 'msp',
      titleKey: 'pages.certificates',
      page,
      menu: { labelKey: 'nav.certificates', parent: 'globalSettings', order: 80 },
    },
    {
      path: '/customer/settings/certificates',
      area: 'customer',
      titleKey: 'pages.certificates',
      page,
      menu: { labelKey: 'nav.certificates', parent: 'settings', order: 40 },
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
