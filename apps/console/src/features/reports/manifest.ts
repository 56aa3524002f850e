import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/** The reporting pages (spec-notes §2 Customer reporting): summary with scheduled and archived reports, and one page per report type. */
export const reportsFeature = defineFeature({
  name: 'reports',
  routes: [
    {
      path: '/customer/reporting/summary',
      area: 'customer',
      titleKey: 'pages.reportSummary',
      page: () => import('./SummaryPage.tsx').then((m) => m.SummaryPage),
      menu: { labelKey: 'nav.summary', parent: 'reporting', order: 10 },
    },
    {
      path: '/customer/reporting/behavior_reports',
      area: 'customer',
      titleKey: 'pages.behaviorReports',
      page: () => import('./ReportPage.tsx').then((m) => m.BehaviourReportsPage),
      menu: { labelKey: 'nav.behaviorReports', parent: 'reporting', order: 20 },
    },
    {
      path: '/customer/reporting/blocked_reports',
      area: 'customer',
      titleKey: 'pages.blockedReports',
      page: () => import('./ReportPage.tsx').then((m) => m.BlockedReportsPage),
      menu: { labelKey: 'nav.blockedReports', parent: 'reporting', order: 30 },
    },
    {
      path: '/customer/reporting/security_reports',
      area: 'customer',
      titleKey: 'pages.securityReports',
      page: () => import('./ReportPage.tsx').then((m) => m.SecurityReportsPage),
      menu: { labelKey: 'nav.securityReports', parent: 'reporting', order: 40 },
    },
    {
      path: '/customer/reporting/trend_reports',
      area: 'customer',
      titleKey: 'pages.trendReports',
      page: () => import('./ReportPage.tsx').then((m) => m.TrendReportsPage),
      menu: { labelKey: 'nav.trendReports', parent: 'reporting', order: 50 },
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
