import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/**
 * Administrators at system, MSP and customer level with their id pages (spec-notes §2), and the MSP's
 * security settings (2FA enforcement, spec-notes §6).
 */
export const adminsFeature = defineFeature({
  name: 'admins',
  routes: [
    {
      path: '/system/global_settings/administrators',
      area: 'system',
      titleKey: 'pages.administrators',
      page: () => import('./AdminsPage.tsx').then((m) => m.SystemAdminsPage),
      menu: { labelKey: 'nav.administrators', order: 10, parent: 'globalSettings' },
    },
    {
      path: '/system/global_settings/administrators/:id',
      area: 'system',
      titleKey: 'pages.administrator',
      page: () => import('./AdminDetailPage.tsx').then((m) => m.SystemAdminDetailPage),
    },
    {
      path: '/msp/global_settings/administrators',
      area: 'msp',
      titleKey: 'pages.administrators',
      page: () => import('./AdminsPage.tsx').then((m) => m.MspAdminsPage),
      menu: { labelKey: 'nav.administrators', order: 10, parent: 'globalSettings' },
    },
    {
      path: '/msp/global_settings/administrators/:id',
      area: 'msp',
      titleKey: 'pages.administrator',
      page: () => import('./AdminDetailPage.tsx').then((m) => m.MspAdminDetailPage),
    },
    {
      path: '/msp/global_settings/security_settings',
      area: 'msp',
      titleKey: 'pages.securitySettings',
      page: () => import('./SecuritySettingsPage.tsx').then((m) => m.SecuritySettingsPage),
      menu: { labelKey: 'nav.securitySettings', order: 20, parent: 'globalSettings' },
    },
    {
      path: '/customer/settings/administrators',
      area: 'customer',
      titleKey: 'pages.administrators',
      page: () => import('./AdminsPage.tsx').then((m) => m.CustomerAdminsPage),
      menu: { labelKey: 'nav.administrators', order: 10, parent: 'settings' },
    },
    {
      path: '/customer/settings/administrators/:id',
      area: 'customer',
      titleKey: 'pages.administrator',
      page: () => import('./AdminDetailPage.tsx').then((m) => m.CustomerAdminDetailPage),
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
