import type { MenuGroup } from '../platform/manifest.ts';
import type { Area } from '../session/routeGuard.ts';

/**
 * What the menus hold before any feature adds its pages (spec §2 "Navigation menus"): the groups,
 * and the pages the spec lists that are not built yet ("soon": shown disabled, never a link to a
 * placeholder). A feature's menu item with the same path takes the place of its "soon" item, so
 * building a page does not require editing this file; its line may then be deleted.
 */
export type SkeletonEntry =
  | { kind: 'group'; area: Area; group: MenuGroup; labelKey: string; path: string; order: number }
  | { kind: 'soon'; area: Area; labelKey: string; path: string; order: number; parent?: MenuGroup };

const group = (area: Area, id: MenuGroup, labelKey: string, path: string, order: number): SkeletonEntry => ({
  kind: 'group',
  area,
  group: id,
  labelKey,
  path,
  order,
});

const soon = (area: Area, labelKey: string, path: string, order: number, parent?: MenuGroup): SkeletonEntry => ({
  kind: 'soon',
  area,
  labelKey,
  path,
  order,
  ...(parent ? { parent } : {}),
});

/** The system and MSP "Global settings" group; the MSP's has security settings and interface too. */
function globalSettings(area: 'system' | 'msp'): SkeletonEntry[] {
  const base = `/${area}/global_settings`;
  const item = (labelKey: string, segment: string, order: number) =>
    soon(area, labelKey, `${base}/${segment}`, order, 'globalSettings');
  return [
    group(area, 'globalSettings', 'nav.globalSettings', base, 20),
    item('nav.administrators', 'administrators', 10),
    ...(area === 'msp'
      ? [item('nav.securitySettings', 'security_settings', 20), item('nav.interface', 'interface', 30)]
      : []),
    item('nav.globalBlockPage', 'global_block_page', 40),
    item('nav.globalDefaultPolicy', 'global_default_policy', 50),
    item('nav.tools', 'tools', 70),
    item('nav.support', 'support', 90),
    item('nav.emailSettings', 'email_settings', 100),
  ];
}

/** A customer-menu group and its pages not built yet, numbered 10, 20, … in the listed order. */
function customerGroup(
  id: MenuGroup,
  labelKey: string,
  segment: string,
  order: number,
  items: readonly (readonly [labelKey: string, segment: string, order: number])[],
): SkeletonEntry[] {
  const base = `/customer/${segment}`;
  return [
    group('customer', id, labelKey, base, order),
    ...items.map(([key, seg, o]) => soon('customer', key, `${base}/${seg}`, o, id)),
  ];
}

/** The menu skeleton of every area (orders leave room: built pages take 10, 20, … too). */
export const MENU_SKELETON: readonly SkeletonEntry[] = [
  ...globalSettings('system'),
  ...globalSettings('msp'),
  soon('customer', 'nav.recentTraffic', '/customer/recent_traffic', 20),
  ...customerGroup('contentFiltering', 'nav.contentFiltering', 'content_filtering', 30, [
    ['nav.blockPage', 'block_page', 30],
  ]),
  ...customerGroup('environment', 'nav.environment', 'environment', 40, [
    ['nav.devices', 'devices', 20],
    ['nav.groups', 'groups', 30],
    ['nav.users', 'users', 40],
  ]),
  ...customerGroup('reporting', 'nav.reporting', 'reporting', 50, [
    ['nav.summary', 'summary', 10],
    ['nav.behaviorReports', 'behavior_reports', 20],
    ['nav.blockedReports', 'blocked_reports', 30],
    ['nav.securityReports', 'security_reports', 40],
    ['nav.trendReports', 'trend_reports', 50],
    ['nav.historyReports', 'history_reports', 60],
  ]),
  ...customerGroup('settings', 'nav.settings', 'settings', 60, [
    ['nav.administrators', 'administrators', 10],
    ['nav.defaultPolicy', 'default_policy', 20],
    ['nav.tools', 'tools', 30],
    ['nav.deviceExceptions', 'device_exceptions', 50],
    ['nav.deviceConfiguration', 'device_configuration', 60],
  ]),
  soon('profile', 'nav.security', '/profile/security', 20),
];
