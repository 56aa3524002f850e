import type { Area } from './routeGuard.ts';

/**
 * One entry of an area's navigation menu (spec §2 "Navigation menus"). `ready: false` marks a page
 * that is not built yet: it is shown disabled and never links to a placeholder.
 */
export interface NavItem {
  labelKey: string;
  path: string;
  ready?: boolean;
  children?: NavItem[];
}

const soon = (labelKey: string, path: string): NavItem => ({ labelKey, path });

const globalSettings = (base: string, withSecurity: boolean): NavItem => ({
  labelKey: 'nav.globalSettings',
  path: `${base}/global_settings`,
  children: [
    soon('nav.administrators', `${base}/global_settings/administrators`),
    ...(withSecurity
      ? [
          soon('nav.securitySettings', `${base}/global_settings/security_settings`),
          soon('nav.interface', `${base}/global_settings/interface`),
        ]
      : []),
    soon('nav.globalBlockPage', `${base}/global_settings/global_block_page`),
    soon('nav.globalDefaultPolicy', `${base}/global_settings/global_default_policy`),
    soon('nav.globalDomains', `${base}/global_settings/global_domains`),
    soon('nav.tools', `${base}/global_settings/tools`),
    soon('nav.certificates', `${base}/global_settings/certificates`),
    soon('nav.support', `${base}/global_settings/support`),
    soon('nav.emailSettings', `${base}/global_settings/email_settings`),
  ],
});

/** The menus of each area, in the spec's order (spec §2). */
export const MENUS: Readonly<Record<Area, readonly NavItem[]>> = {
  system: [{ labelKey: 'nav.overview', path: '/system/overview', ready: true }, globalSettings('/system', false)],
  sales: [{ labelKey: 'nav.msps', path: '/sales/msps', ready: true }],
  msp: [{ labelKey: 'nav.overview', path: '/msp/overview', ready: true }, globalSettings('/msp', true)],
  customer: [
    { labelKey: 'nav.overview', path: '/customer/overview', ready: true },
    soon('nav.recentTraffic', '/customer/recent_traffic'),
    {
      labelKey: 'nav.contentFiltering',
      path: '/customer/content_filtering',
      children: [
        { labelKey: 'nav.policies', path: '/customer/content_filtering/policies', ready: true },
        soon('nav.domains', '/customer/content_filtering/domains'),
        soon('nav.blockPage', '/customer/content_filtering/block_page'),
      ],
    },
    {
      labelKey: 'nav.environment',
      path: '/customer/environment',
      children: [
        { labelKey: 'nav.locations', path: '/customer/environment/locations', ready: true },
        soon('nav.devices', '/customer/environment/devices'),
        soon('nav.groups', '/customer/environment/groups'),
        soon('nav.users', '/customer/environment/users'),
      ],
    },
    {
      labelKey: 'nav.reporting',
      path: '/customer/reporting',
      children: [
        soon('nav.summary', '/customer/reporting/summary'),
        soon('nav.behaviorReports', '/customer/reporting/behavior_reports'),
        soon('nav.blockedReports', '/customer/reporting/blocked_reports'),
        soon('nav.securityReports', '/customer/reporting/security_reports'),
        soon('nav.trendReports', '/customer/reporting/trend_reports'),
        soon('nav.historyReports', '/customer/reporting/history_reports'),
      ],
    },
    {
      labelKey: 'nav.settings',
      path: '/customer/settings',
      children: [
        soon('nav.administrators', '/customer/settings/administrators'),
        soon('nav.defaultPolicy', '/customer/settings/default_policy'),
        soon('nav.tools', '/customer/settings/tools'),
        soon('nav.certificates', '/customer/settings/certificates'),
        soon('nav.deviceExceptions', '/customer/settings/device_exceptions'),
        soon('nav.deviceConfiguration', '/customer/settings/device_configuration'),
      ],
    },
  ],
  profile: [{ labelKey: 'nav.profile', path: '/profile', ready: true }, soon('nav.security', '/profile/security')],
};

/** True when an item or any of its children links to a built page. */
export function hasReadyPage(item: NavItem): boolean {
  return item.ready === true || (item.children ?? []).some(hasReadyPage);
}
