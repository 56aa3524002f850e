import type { FeatureManifest, MenuGroup } from '../platform/manifest.ts';
import { AREAS, type Area } from '../session/routeGuard.ts';
import { FEATURES } from './features.ts';
import { MENU_SKELETON, type SkeletonEntry } from './menuSkeleton.ts';

/**
 * One entry of an area's navigation menu (spec-notes §2 "Navigation menus"). `ready: false` (or absent)
 * marks a page that is not built yet: it is shown disabled and never links to a placeholder.
 */
export interface NavItem {
  labelKey: string;
  path: string;
  ready?: boolean;
  children?: NavItem[];
}

interface Placed {
  item: NavItem;
  order: number;
  parent: MenuGroup | undefined;
}

/** Orders siblings by `order`. @throws Error when two siblings share an order (the menu order would be ambiguous). */
function sortSiblings(placed: readonly Placed[], where: string): NavItem[] {
  const sorted = [...placed].sort((a, b) => a.order - b.order);
  sorted.forEach((p, i) => {
    const next = sorted[i + 1];
    if (next && next.order === p.order) {
      throw new Error(`Menu items ${p.item.path} and ${next.item.path} of ${where} share order ${p.order}`);
    }
  });
  return sorted.map((p) => p.item);
}

/**
 * Builds the menu of every area from the skeleton (groups, pages not built yet) and the features'
 * menu items (built pages), each list in ascending `order` (spec-notes §2 menus and their order).
 * A feature's item replaces the skeleton's item of the same path.
 * @throws Error when an item names a group its area lacks, a menu item's path has a `:param`, or
 *   two siblings share an order
 */
export function buildMenus(
  features: readonly FeatureManifest[],
  skeleton: readonly SkeletonEntry[],
): Readonly<Record<Area, readonly NavItem[]>> {
  const built = features.flatMap((f) =>
    f.routes.flatMap((route) => {
      if (!route.menu) return [];
      if (route.area === 'blank' || route.area === 'none' || route.path.includes(':')) {
        throw new Error(`Feature ${f.name}: ${route.path} cannot have a menu item (no area menu or a :param)`);
      }
      const { labelKey, order, parent, ready = true } = route.menu;
      return [{ area: route.area, placed: { item: { labelKey, path: route.path, ready }, order, parent } }];
    }),
  );
  const builtPaths = new Set(built.map((b) => b.placed.item.path));

  const menus = {} as Record<Area, NavItem[]>;
  for (const area of AREAS) {
    const groups = new Map<MenuGroup, { placed: Placed; children: Placed[] }>();
    const entries = skeleton.filter((e) => e.area === area);
    for (const e of entries) {
      if (e.kind === 'group') {
        groups.set(e.group, {
          placed: { item: { labelKey: e.labelKey, path: e.path }, order: e.order, parent: undefined },
          children: [],
        });
      }
    }
    const items: Placed[] = [
      ...entries.flatMap((e): Placed[] =>
        e.kind === 'soon' && !builtPaths.has(e.path)
          ? [{ item: { labelKey: e.labelKey, path: e.path }, order: e.order, parent: e.parent }]
          : [],
      ),
      ...built.filter((b) => b.area === area).map((b) => b.placed),
    ];
    const top: Placed[] = [];
    for (const p of items) {
      if (p.parent === undefined) {
        top.push(p);
        continue;
      }
      const g = groups.get(p.parent);
      if (!g) throw new Error(`Menu item ${p.item.path}: the ${area} menu has no group ${p.parent}`);
      g.children.push(p);
    }
    for (const g of groups.values()) {
      g.placed.item.children = sortSiblings(g.children, `${area}/${g.placed.item.path}`);
      top.push(g.placed);
    }
    menus[area] = sortSiblings(top, `the ${area} menu`);
  }
  return menus;
}

/** The menus of each area, in the spec's order (spec-notes §2). */
export const MENUS = buildMenus(FEATURES, MENU_SKELETON);

/** True when an item or any of its children links to a built page. */
export function hasReadyPage(item: NavItem): boolean {
  return item.ready === true || (item.children ?? []).some(hasReadyPage);
}
