import type { MenuGroup } from '../platform/manifest.ts';
import type { Area } from '../session/routeGuard.ts';

/**
 * What the menus hold before any feature adds its pages (spec-notes §2 "Navigation menus"): the groups,
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
    item('nav.globalBlockPage', 'global_block_page', 40),
    item('nav.globalDefaultPolicy', 'global_default_policy', 50),
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
  ...customerGroup('contentFiltering', 'nav.contentFiltering', 'content_filtering', 30, [
    ['nav.blockPage', 'block_page', 30],
  ]),
  ...customerGroup('environment', 'nav.environment', 'environment', 40, []),
  ...customerGroup('reporting', 'nav.reporting', 'reporting', 50, []),
  ...customerGroup('settings', 'nav.settings', 'settings', 60, [['nav.defaultPolicy', 'default_policy', 20]]),
];
