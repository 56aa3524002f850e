import type { ComponentType } from 'react';
import type { MessageImport, TranslatedLanguage } from '../i18n/index.ts';
import type { MessageTree } from '../i18n/messages.ts';
import type { Area } from '../session/routeGuard.ts';

/**
 * The layout a route renders in (spec-notes §2 layouts): an area's layout (with its guard and menu),
 * `blank` (login, 403, 404: centred, no navigation) or `none` (no layout, e.g. `/logout`).
 */
export type RouteLayout = Area | 'blank' | 'none';

/**
 * The groups of the area menus (spec-notes §2 "Navigation menus"); the app's menu skeleton places them.
 * A group is local to an area: `globalSettings` exists in the system and MSP menus.
 */
export type MenuGroup = 'globalSettings' | 'contentFiltering' | 'environment' | 'reporting' | 'settings';

/** Where a page sits in its area's menu (spec-notes §2 menus and their order). */
export interface MenuPlacement {
  /** i18n key of the label (`nav.*`). */
  labelKey: string;
  /** Position among its siblings, ascending; siblings never share one. */
  order: number;
  /** The group it belongs to; top level when absent. */
  parent?: MenuGroup;
  /** `false` shows the item disabled ("not available yet") though its page exists; default true. */
  ready?: boolean;
}

/** One page of a feature. */
export interface FeatureRoute {
  /**
   * The absolute console path (spec-notes §2), e.g. `/customer/content_filtering/policies/:id`; inside an
   * area it starts with the area's base (`/customer`), `*` is the catch-all.
   */
  path: string;
  area: RouteLayout;
  /** i18n key of the page name: the heading and `{ui title} | {page}` (spec-notes §2 titles). */
  titleKey: string;
  /** Loads the page lazily (bench/README.md: routes are lazy-loaded, so the first load stays small). */
  page: () => Promise<ComponentType>;
  /** Its menu item, when the page has one. */
  menu?: MenuPlacement;
}

/**
 * What a feature folder contributes to the console: its pages and its strings. `app/` composes one
 * explicit, ordered array of manifests into the router and the menus (docs/contributing.md
 * "Add a console page"). A manifest imports nothing of its pages but through `page()`.
 */
export interface FeatureManifest {
  /** The feature folder's name (`features/<name>`). */
  name: string;
  routes: readonly FeatureRoute[];
  /** The feature's English strings (`features/<name>/i18n/en.json`), in the console's first load. */
  messages: { readonly en: MessageTree };
  /**
   * The feature's strings in every other language, each a dynamic import of
   * `features/<name>/i18n/<lang>.json` (`fr: () => import('./i18n/fr.json')`): fetched only when the
   * language is chosen, never statically imported (bench/README.md "Console first load").
   */
  translations: Readonly<Record<TranslatedLanguage, MessageImport>>;
}

/** Returns `manifest` unchanged, checked against {@link FeatureManifest}. */
export function defineFeature(manifest: FeatureManifest): FeatureManifest {
  return manifest;
}
