import { describe, expect, it } from 'vitest';
import { defineFeature, type FeatureManifest } from '../platform/manifest.ts';
import { MENU_SKELETON } from './menuSkeleton.ts';
import { buildMenus, hasReadyPage, MENUS, type NavItem } from './navigation.ts';

const ready = (labelKey: string, path: string): NavItem => ({ labelKey, path, ready: true });
const soon = (labelKey: string, path: string): NavItem => ({ labelKey, path });
const group = (labelKey: string, path: string, children: NavItem[]): NavItem => ({ labelKey, path, children });

const page = () => Promise.resolve(() => null);
const feature = (routes: FeatureManifest['routes']) =>
  defineFeature({
    name: 'test',
    routes,
    messages: { en: {} },
    translations: { fr: () => Promise.resolve({ default: {} }) },
  });

describe('area menus built from the manifests and the skeleton (spec-notes §2 "Navigation menus")', () => {
  it('are exactly the spec menus, in order, with the built pages linked and the others "soon"', () => {
    expect(MENUS).toStrictEqual({
      system: [
        ready('nav.overview', '/system/overview'),
        group('nav.globalSettings', '/system/global_settings', [
          ready('nav.administrators', '/system/global_settings/administrators'),
          ready('nav.globalBlockPage', '/system/global_settings/global_block_page'),
          ready('nav.globalDefaultPolicy', '/system/global_settings/global_default_policy'),
          ready('nav.globalDomains', '/system/global_settings/global_domains'),
          ready('nav.tools', '/system/global_settings/tools'),
          ready('nav.categoryFeeds', '/system/global_settings/category_feeds'),
          ready('nav.certificates', '/system/global_settings/certificates'),
          ready('nav.interface', '/system/global_settings/interface'),
          ready('nav.support', '/system/global_settings/support'),
          ready('nav.emailSettings', '/system/global_settings/email_settings'),
          ready('nav.auditLog', '/system/global_settings/audit_log'),
        ]),
      ],
      sales: [ready('nav.msps', '/sales/msps')],
      msp: [
        ready('nav.overview', '/msp/overview'),
        group('nav.globalSettings', '/msp/global_settings', [
          ready('nav.administrators', '/msp/global_settings/administrators'),
          ready('nav.securitySettings', '/msp/global_settings/security_settings'),
          ready('nav.interface', '/msp/global_settings/interface'),
          ready('nav.globalBlockPage', '/msp/global_settings/global_block_page'),
          ready('nav.globalDefaultPolicy', '/msp/global_settings/global_default_policy'),
          ready('nav.globalDomains', '/msp/global_settings/global_domains'),
          ready('nav.tools', '/msp/global_settings/tools'),
          ready('nav.certificates', '/msp/global_settings/certificates'),
          ready('nav.support', '/msp/global_settings/support'),
          ready('nav.emailSettings', '/msp/global_settings/email_settings'),
          ready('nav.webhooks', '/msp/global_settings/webhooks'),
          ready('nav.logStreams', '/msp/global_settings/log_streams'),
          ready('nav.auditLog', '/msp/global_settings/audit_log'),
        ]),
      ],
      customer: [
        ready('nav.overview', '/customer/overview'),
        ready('nav.recentTraffic', '/customer/recent_traffic'),
        group('nav.contentFiltering', '/customer/content_filtering', [
          ready('nav.policies', '/customer/content_filtering/policies'),
          ready('nav.domains', '/customer/content_filtering/domains'),
          ready('nav.blockPage', '/customer/content_filtering/block_page'),
          ready('nav.cloudKeys', '/customer/content_filtering/cloud_keys'),
        ]),
        group('nav.environment', '/customer/environment', [
          ready('nav.locations', '/customer/environment/locations'),
          ready('nav.devices', '/customer/environment/devices'),
          ready('nav.groups', '/customer/environment/groups'),
          ready('nav.users', '/customer/environment/users'),
        ]),
        group('nav.reporting', '/customer/reporting', [
          ready('nav.summary', '/customer/reporting/summary'),
          ready('nav.behaviorReports', '/customer/reporting/behavior_reports'),
          ready('nav.blockedReports', '/customer/reporting/blocked_reports'),
          ready('nav.securityReports', '/customer/reporting/security_reports'),
          ready('nav.trendReports', '/customer/reporting/trend_reports'),
          ready('nav.historyReports', '/customer/reporting/history_reports'),
        ]),
        group('nav.settings', '/customer/settings', [
          ready('nav.administrators', '/customer/settings/administrators'),
          ready('nav.defaultPolicy', '/customer/settings/default_policy'),
          ready('nav.tools', '/customer/settings/tools'),
          ready('nav.certificates', '/customer/settings/certificates'),
          ready('nav.deviceExceptions', '/customer/settings/device_exceptions'),
          ready('nav.deviceConfiguration', '/customer/settings/device_configuration'),
          ready('nav.staticRoutes', '/customer/settings/static_routes'),
          ready('nav.webhooks', '/customer/settings/webhooks'),
          ready('nav.support', '/customer/settings/support'),
        ]),
      ],
      profile: [
        ready('nav.profile', '/profile'),
        ready('nav.security', '/profile/security'),
        ready('nav.apiTokens', '/profile/api-tokens'),
      ],
    });
  });

  it("lets a feature's page take the place of its skeleton item, at the feature's position", () => {
    const domains = feature([
      {
        path: '/customer/content_filtering/domains',
        area: 'customer',
        titleKey: 'pages.domains',
        page,
        menu: { labelKey: 'nav.domains', parent: 'contentFiltering', order: 20 },
      },
    ]);
    const menus = buildMenus([domains], MENU_SKELETON);
    const contentFiltering = menus.customer.find((i) => i.path === '/customer/content_filtering');
    expect(contentFiltering?.children).toStrictEqual([
      ready('nav.domains', '/customer/content_filtering/domains'),
      soon('nav.blockPage', '/customer/content_filtering/block_page'),
    ]);
    expect(contentFiltering && hasReadyPage(contentFiltering)).toBe(true);
    // Without built pages, the group has none ready and is shown disabled.
    const reporting = menus.customer.find((i) => i.path === '/customer/reporting');
    expect(reporting && hasReadyPage(reporting)).toBe(false);
  });

  it('refuses an ambiguous order, an unknown group and a menu item on a :param route', () => {
    const at = (path: string, menu: NonNullable<FeatureManifest['routes'][number]['menu']>) =>
      feature([{ path, area: 'customer', titleKey: 't', page, menu }]);
    // Order 30 is the content-filtering group's.
    expect(() => buildMenus([at('/customer/x', { labelKey: 'nav.x', order: 30 })], MENU_SKELETON)).toThrow(
      /share order 30/,
    );
    expect(() => buildMenus([at('/customer/x', { labelKey: 'nav.x', order: 5, parent: 'reporting' })], [])).toThrow(
      /has no group reporting/,
    );
    expect(() => buildMenus([at('/customer/x/:id', { labelKey: 'nav.x', order: 5 })], [])).toThrow(/:param/);
  });
});
