import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** The audit log at system and MSP level (docs/security.md "Accounts"; not a page of the spec). */
export const auditFeature = defineFeature({
  name: 'audit',
  routes: [
    {
      path: '/system/global_settings/audit_log',
      area: 'system',
      titleKey: 'pages.auditLog',
      page: () => import('./AuditLogPage.tsx').then((m) => m.SystemAuditLogPage),
      menu: { labelKey: 'nav.auditLog', order: 110, parent: 'globalSettings' },
    },
    {
      path: '/msp/global_settings/audit_log',
      area: 'msp',
      titleKey: 'pages.auditLog',
      page: () => import('./AuditLogPage.tsx').then((m) => m.MspAuditLogPage),
      menu: { labelKey: 'nav.auditLog', order: 110, parent: 'globalSettings' },
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
