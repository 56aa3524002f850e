import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** Email settings at system and MSP level (spec-notes §2 `email_settings`, spec-notes §7 `/mail`). */
export const mailSettingsFeature = defineFeature({
  name: 'mailsettings',
  routes: [
    {
      path: '/system/global_settings/email_settings',
      area: 'system',
      titleKey: 'pages.emailSettings',
      page: () => import('./EmailSettingsPage.tsx').then((m) => m.SystemEmailSettingsPage),
      menu: { labelKey: 'nav.emailSettings', order: 100, parent: 'globalSettings' },
    },
    {
      path: '/msp/global_settings/email_settings',
      area: 'msp',
      titleKey: 'pages.emailSettings',
      page: () => import('./EmailSettingsPage.tsx').then((m) => m.MspEmailSettingsPage),
      menu: { labelKey: 'nav.emailSettings', order: 100, parent: 'globalSettings' },
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
