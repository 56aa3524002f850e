import { Constants } from '@cordon/shared';
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import type { RouteHandle } from '../components/PageHeader.tsx';
import type { FeatureManifest, FeatureRoute } from '../platform/manifest.ts';
import { AREAS, type Area } from '../session/routeGuard.ts';
import { FEATURES } from './features.ts';
import { AreaLayout } from './layouts/AreaLayout.tsx';
import { AreaNotAvailable } from './layouts/AreaNotAvailable.tsx';
import { BlankLayout } from './layouts/BlankLayout.tsx';
import { RootLayout, RouteFallback } from './layouts/RootLayout.tsx';
import { ChunkLoadError, RouteError } from './layouts/RouteError.tsx';
import { SettingsIndex } from './layouts/SettingsIndex.tsx';

/** The path under which each area's layout, guard and menu apply (spec-notes §2). */
export const AREA_BASE: Readonly<Record<Area, string>> = {
  system: '/system',
  sales: '/sales',
  msp: '/msp',
  customer: '/customer',
  profile: '/profile',
};

/** Where an area's bare path leads (spec-notes §2: `/system`, `/customer`, `/msp`, `/sales` redirect to their first page). */
const AREA_INDEX: Readonly<Record<Area, string | null>> = {
  system: '/system/overview',
  sales: '/sales/msps',
  msp: '/msp/overview',
  customer: '/customer/overview',
  profile: null,
};

/**
 * `load()`, failing with a {@link ChunkLoadError} when it takes longer than the spec's script chunk
 * timeout (spec-notes §9: 120 s), so a hung chunk shows the chunk-load error instead of loading forever.
 */
export function withChunkTimeout<T>(load: () => Promise<T>, timeoutMs: number = Constants.chunkTimeoutMs): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ChunkLoadError(`page chunk not loaded within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([load(), timeout]).finally(() => clearTimeout(timer));
}

/** A lazily loaded page (bench/README.md: routes are lazy-loaded); its handle names the page (spec-notes §2 titles). */
function page(route: FeatureRoute, path: string | undefined): RouteObject {
  const handle: RouteHandle = { title: route.titleKey };
  const lazy = async () => ({ Component: await withChunkTimeout(route.page) });
  return path === undefined ? { index: true, handle, lazy } : { path, handle, lazy };
}

const redirect = (to: string): RouteObject => ({ index: true, element: <Navigate to={to} replace /> });

/**
 * The settings index pages of spec-notes §2 (the MSP's `global_settings` index and the customer's
 * `settings` index; the system has none): built from the area's menu group.
 */
function settingsIndex(area: Area): RouteObject[] {
  const at = (segment: string, title: string, groupArea: 'msp' | 'customer'): RouteObject[] => [
    {
      path: segment,
      handle: { title } satisfies RouteHandle,
      element: <SettingsIndex area={groupArea} groupPath={`${AREA_BASE[groupArea]}/${segment}`} />,
    },
  ];
  if (area === 'msp') return at('global_settings', 'nav.globalSettings', 'msp');
  if (area === 'customer') return at('settings', 'nav.settings', 'customer');
  return [];
}

/** The path of `route` inside its area's layout route: undefined for the area's own path (an index route). */
function childPath(feature: string, route: FeatureRoute & { area: Area }): string | undefined {
  const base = AREA_BASE[route.area];
  if (route.path === base) return undefined;
  if (!route.path.startsWith(`${base}/`)) {
    throw new Error(`Feature ${feature}: ${route.path} is outside the ${route.area} area (${base})`);
  }
  return route.path.slice(base.length + 1);
}

/**
 * Builds the route table (spec-notes §2) from feature manifests: each area carries its layout and guard
 * and redirects its bare path to its first page, and shows an unknown path of the area inside its
 * frame ("not available yet"); blank-layout pages (login, 403, 404, the
 * catch-all) share the blank layout; `/login` leads to `/`.
 * @throws Error when two routes claim one path or a route lies outside its area
 */
export function buildRoutes(features: readonly FeatureManifest[]): RouteObject[] {
  const owners = new Map<string, string>();
  for (const f of features) {
    for (const r of f.routes) {
      const owner = owners.get(r.path);
      if (owner) throw new Error(`Route ${r.path} is declared by features ${owner} and ${f.name}`);
      owners.set(r.path, f.name);
    }
  }
  const routes = features.flatMap((f) => f.routes.map((route) => ({ feature: f.name, route })));
  const blank = routes.filter((r) => r.route.area === 'blank').map((r) => page(r.route, r.route.path));
  const bare = routes.filter((r) => r.route.area === 'none').map((r) => page(r.route, r.route.path));
  const areas = AREAS.map(
    (area): RouteObject => ({
      path: AREA_BASE[area],
      element: <AreaLayout area={area} />,
      children: [
        ...(AREA_INDEX[area] ? [redirect(AREA_INDEX[area])] : []),
        ...routes.flatMap(({ feature, route }) =>
          route.area === area ? [page(route, childPath(feature, { ...route, area }))] : [],
        ),
        ...settingsIndex(area),
        // An unknown path of the area stays in its frame (a page not built yet, a mistyped URL).
        {
          path: '*',
          handle: { title: 'pages.notAvailable' } satisfies RouteHandle,
          element: <AreaNotAvailable home={AREA_INDEX[area] ?? AREA_BASE[area]} />,
        },
      ],
    }),
  );
  return [
    {
      element: <RootLayout />,
      errorElement: <RouteError />,
      hydrateFallbackElement: <RouteFallback />,
      children: [
        { element: <BlankLayout />, children: [...blank, { path: '/login', element: <Navigate to="/" replace /> }] },
        ...bare,
        ...areas,
      ],
    },
  ];
}

/** The route table of {@link FEATURES}. */
export const routes: RouteObject[] = buildRoutes(FEATURES);

/** Creates the browser router over the route table. */
export function createAppRouter() {
  return createBrowserRouter(routes);
}

/** The router type, for code that navigates outside React (the global response handler). */
export type AppRouter = ReturnType<typeof createAppRouter>;
