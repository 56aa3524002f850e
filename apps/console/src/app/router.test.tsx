import { isValidElement } from 'react';
import { matchRoutes, type RouteObject } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { RouteHandle } from '../components/PageHeader.tsx';
import { defineFeature } from '../platform/manifest.ts';
import { buildRoutes, routes } from './router.tsx';

/** The page a path opens: its title key, the layout it renders in, or where it redirects. */
function resolve(table: RouteObject[], path: string) {
  const matches = matchRoutes(table, path) ?? [];
  const layout = matches
    .map((m) => m.route.element)
    .filter(isValidElement)
    .map((el) => {
      const props = el.props as { area?: string; to?: string };
      const name = typeof el.type === 'function' ? el.type.name : String(el.type);
      return props.area ? `${name}:${props.area}` : props.to !== undefined ? `redirect:${props.to}` : name;
    });
  const title = matches.map((m) => (m.route.handle as RouteHandle | undefined)?.title).findLast(Boolean);
  return { layout: layout.join(' > '), title };
}

describe('the route table built from the feature manifests (spec-notes §2)', () => {
  it('opens every page of the console in its layout, with its title', () => {
    const table: Record<string, { layout: string; title: string | undefined }> = {
      '/': { layout: 'RootLayout > BlankLayout', title: 'pages.login' },
      '/login': { layout: 'RootLayout > BlankLayout > redirect:/', title: undefined },
      '/403': { layout: 'RootLayout > BlankLayout', title: 'pages.forbidden' },
      '/404': { layout: 'RootLayout > BlankLayout', title: 'pages.notFound' },
      '/no/such/page': { layout: 'RootLayout > BlankLayout', title: 'pages.notFound' },
      '/logout': { layout: 'RootLayout', title: 'pages.logout' },
      '/system': { layout: 'RootLayout > AreaLayout:system > redirect:/system/overview', title: undefined },
      '/system/overview': { layout: 'RootLayout > AreaLayout:system', title: 'pages.systemOverview' },
      '/sales': { layout: 'RootLayout > AreaLayout:sales > redirect:/sales/msps', title: undefined },
      '/sales/msps': { layout: 'RootLayout > AreaLayout:sales', title: 'pages.salesMsps' },
      '/msp': { layout: 'RootLayout > AreaLayout:msp > redirect:/msp/overview', title: undefined },
      '/msp/overview': { layout: 'RootLayout > AreaLayout:msp', title: 'pages.mspOverview' },
      '/customer': { layout: 'RootLayout > AreaLayout:customer > redirect:/customer/overview', title: undefined },
      '/customer/overview': { layout: 'RootLayout > AreaLayout:customer', title: 'pages.customerOverview' },
      '/customer/content_filtering/policies': { layout: 'RootLayout > AreaLayout:customer', title: 'pages.policies' },
      '/customer/content_filtering/policies/12': { layout: 'RootLayout > AreaLayout:customer', title: 'pages.policy' },
      '/customer/settings/default_policy': { layout: 'RootLayout > AreaLayout:customer', title: 'pages.defaultPolicy' },
      '/msp/global_settings/global_default_policy': {
        layout: 'RootLayout > AreaLayout:msp',
        title: 'pages.globalDefaultPolicy',
      },
      '/system/global_settings/global_default_policy': {
        layout: 'RootLayout > AreaLayout:system',
        title: 'pages.globalDefaultPolicy',
      },
      '/customer/content_filtering/block_page': {
        layout: 'RootLayout > AreaLayout:customer',
        title: 'pages.blockPage',
      },
      '/msp/global_settings/global_block_page': {
        layout: 'RootLayout > AreaLayout:msp',
        title: 'pages.globalBlockPage',
      },
      '/system/global_settings/global_block_page': {
        layout: 'RootLayout > AreaLayout:system',
        title: 'pages.globalBlockPage',
      },
      '/customer/content_filtering/cloud_keys': {
        layout: 'RootLayout > AreaLayout:customer',
        title: 'pages.cloudKeys',
      },
      '/customer/content_filtering/cloud_keys/3': {
        layout: 'RootLayout > AreaLayout:customer',
        title: 'pages.cloudKey',
      },
      '/customer/content_filtering/domains': { layout: 'RootLayout > AreaLayout:customer', title: 'pages.domains' },
      '/customer/content_filtering/domains/5': { layout: 'RootLayout > AreaLayout:customer', title: 'pages.domain' },
      '/customer/content_filtering/policies/12/domains': {
        layout: 'RootLayout > AreaLayout:customer',
        title: 'pages.policy',
      },
      '/customer/content_filtering/policies/12/locations': {
        layout: 'RootLayout > AreaLayout:customer',
        title: 'pages.policy',
      },
      '/msp/global_settings/global_domains': { layout: 'RootLayout > AreaLayout:msp', title: 'pages.globalDomains' },
      '/msp/global_settings/global_domains/5': { layout: 'RootLayout > AreaLayout:msp', title: 'pages.globalDomain' },
      '/system/global_settings/global_domains': {
        layout: 'RootLayout > AreaLayout:system',
        title: 'pages.globalDomains',
      },
      '/system/global_settings/global_domains/5': {
        layout: 'RootLayout > AreaLayout:system',
        title: 'pages.globalDomain',
      },
      '/customer/environment/locations': { layout: 'RootLayout > AreaLayout:customer', title: 'pages.locations' },
      '/customer/environment/locations/virtual/5': {
        layout: 'RootLayout > AreaLayout:customer',
        title: 'pages.location',
      },
      '/customer/environment/devices': { layout: 'RootLayout > AreaLayout:customer', title: 'pages.devices' },
      '/customer/environment/devices/5': { layout: 'RootLayout > AreaLayout:customer', title: 'pages.device' },
      '/customer/environment/groups': { layout: 'RootLayout > AreaLayout:customer', title: 'pages.groups' },
      '/customer/environment/groups/5': { layout: 'RootLayout > AreaLayout:customer', title: 'pages.group' },
      '/customer/environment/groups-ranking': {
        layout: 'RootLayout > AreaLayout:customer',
        title: 'pages.groupRanking',
      },
      '/customer/environment/users': { layout: 'RootLayout > AreaLayout:customer', title: 'pages.internalUsers' },
      '/customer/environment/users/5': { layout: 'RootLayout > AreaLayout:customer', title: 'pages.internalUser' },
      '/customer/settings/device_exceptions': {
        layout: 'RootLayout > AreaLayout:customer',
        title: 'pages.deviceExceptions',
      },
      '/customer/settings/device_exceptions/5': {
        layout: 'RootLayout > AreaLayout:customer',
        title: 'pages.deviceException',
      },
      '/customer/settings/device_configuration': {
        layout: 'RootLayout > AreaLayout:customer',
        title: 'pages.deviceConfiguration',
      },
      '/customer/settings/static_routes': { layout: 'RootLayout > AreaLayout:customer', title: 'pages.staticRoutes' },
      '/system/global_settings/certificates': {
        layout: 'RootLayout > AreaLayout:system',
        title: 'pages.certificates',
      },
      '/msp/global_settings/certificates': { layout: 'RootLayout > AreaLayout:msp', title: 'pages.certificates' },
      '/customer/settings/certificates': { layout: 'RootLayout > AreaLayout:customer', title: 'pages.certificates' },
      '/profile': { layout: 'RootLayout > AreaLayout:profile', title: 'pages.profile' },
      '/profile/security': { layout: 'RootLayout > AreaLayout:profile', title: 'pages.profileSecurity' },
      '/login/two-factor-setup': { layout: 'RootLayout > BlankLayout', title: 'pages.twoFactorSetup' },
      '/register': { layout: 'RootLayout > BlankLayout', title: 'pages.register' },
      '/forgot-password': { layout: 'RootLayout > BlankLayout', title: 'pages.forgotPassword' },
      '/reset-password': { layout: 'RootLayout > BlankLayout', title: 'pages.resetPassword' },
      '/system/global_settings/administrators': {
        layout: 'RootLayout > AreaLayout:system',
        title: 'pages.administrators',
      },
      '/system/global_settings/administrators/7': {
        layout: 'RootLayout > AreaLayout:system',
        title: 'pages.administrator',
      },
      '/msp/global_settings/administrators': { layout: 'RootLayout > AreaLayout:msp', title: 'pages.administrators' },
      '/msp/global_settings/administrators/7': { layout: 'RootLayout > AreaLayout:msp', title: 'pages.administrator' },
      '/customer/settings/administrators': {
        layout: 'RootLayout > AreaLayout:customer',
        title: 'pages.administrators',
      },
      '/customer/settings/administrators/7': {
        layout: 'RootLayout > AreaLayout:customer',
        title: 'pages.administrator',
      },
      '/msp/global_settings/security_settings': {
        layout: 'RootLayout > AreaLayout:msp',
        title: 'pages.securitySettings',
      },
      '/system/global_settings/email_settings': {
        layout: 'RootLayout > AreaLayout:system',
        title: 'pages.emailSettings',
      },
      '/msp/global_settings/email_settings': { layout: 'RootLayout > AreaLayout:msp', title: 'pages.emailSettings' },
      '/system/global_settings/audit_log': { layout: 'RootLayout > AreaLayout:system', title: 'pages.auditLog' },
      '/msp/global_settings/audit_log': { layout: 'RootLayout > AreaLayout:msp', title: 'pages.auditLog' },
      '/system/overview/7': { layout: 'RootLayout > AreaLayout:system', title: 'pages.msp' },
      '/sales/msps/7': { layout: 'RootLayout > AreaLayout:sales', title: 'pages.msp' },
      '/msp/overview/7': { layout: 'RootLayout > AreaLayout:msp', title: 'pages.customer' },
      '/customer/settings/tools': { layout: 'RootLayout > AreaLayout:customer', title: 'pages.tools' },
      '/system/global_settings/tools/recategorize_domain': {
        layout: 'RootLayout > AreaLayout:system',
        title: 'pages.tools',
      },
      '/msp/global_settings/tools/dns_lookup': { layout: 'RootLayout > AreaLayout:msp', title: 'pages.tools' },
      '/msp/global_settings': {
        layout: 'RootLayout > AreaLayout:msp > SettingsIndex:msp',
        title: 'nav.globalSettings',
      },
      '/customer/settings': {
        layout: 'RootLayout > AreaLayout:customer > SettingsIndex:customer',
        title: 'nav.settings',
      },
      '/system/global_settings/support': { layout: 'RootLayout > AreaLayout:system', title: 'pages.support' },
      '/msp/global_settings/interface': { layout: 'RootLayout > AreaLayout:msp', title: 'pages.interface' },
      '/customer/settings/support': { layout: 'RootLayout > AreaLayout:customer', title: 'pages.support' },
      // An unknown path inside an area (a page not built yet) stays in the area's frame.
      '/customer/no_such_page': {
        layout: 'RootLayout > AreaLayout:customer > AreaNotAvailable',
        title: 'pages.notAvailable',
      },
    };
    const actual = Object.fromEntries(Object.keys(table).map((path) => [path, resolve(routes, path)]));
    expect(actual).toEqual(table);
  });

  it('loads each page lazily', async () => {
    const matches = matchRoutes(routes, '/customer/content_filtering/policies/12') ?? [];
    const leaf = matches.at(-1)?.route;
    expect(leaf?.Component).toBeUndefined();
    expect(typeof leaf?.lazy).toBe('function');
  });

  it('refuses two features claiming one path and a route outside its area', () => {
    const page = () => Promise.resolve(() => null);
    const translations = { fr: () => Promise.resolve({ default: {} }) };
    const a = defineFeature({
      name: 'a',
      routes: [{ path: '/403', area: 'blank', titleKey: 't', page }],
      messages: { en: {} },
      translations,
    });
    const b = defineFeature({
      name: 'b',
      routes: [{ path: '/403', area: 'blank', titleKey: 't', page }],
      messages: { en: {} },
      translations,
    });
    expect(() => buildRoutes([a, b])).toThrow('Route /403 is declared by features a and b');
    const stray = defineFeature({
      name: 'stray',
      routes: [{ path: '/msp/customers', area: 'customer', titleKey: 't', page }],
      messages: { en: {} },
      translations,
    });
    expect(() => buildRoutes([stray])).toThrow(
      'Feature stray: /msp/customers is outside the customer area (/customer)',
    );
  });
});
