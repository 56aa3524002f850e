import type { ComponentType } from 'react';
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { AreaLayout } from './layouts/AreaLayout.tsx';
import { BlankLayout } from './layouts/BlankLayout.tsx';
import { RootLayout, RouteFallback } from './layouts/RootLayout.tsx';
import type { RouteHandle } from './pageTitle.tsx';

/** A lazily loaded page (DESIGN.md §13: routes are lazy-loaded); `title` is its i18n page name. */
function page(path: string | undefined, title: string, load: () => Promise<ComponentType>): RouteObject {
  const handle: RouteHandle = { title };
  const lazy = async () => ({ Component: await load() });
  return path === undefined ? { index: true, handle, lazy } : { path, handle, lazy };
}

const redirect = (to: string): RouteObject => ({ index: true, element: <Navigate to={to} replace /> });

/**
 * The route table (spec §2). Areas carry their layout and guard; `/system`, `/customer`, `/msp` and
 * `/sales` redirect to their first page; `/` is the login or the role's home; anything else is 404.
 */
export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    hydrateFallbackElement: <RouteFallback />,
    children: [
      {
        element: <BlankLayout />,
        children: [
          page('/', 'pages.login', () => import('../features/auth/RootPage.tsx').then((m) => m.RootPage)),
          { path: '/login', element: <Navigate to="/" replace /> },
          page('/403', 'pages.forbidden', () =>
            import('../features/errors/ForbiddenPage.tsx').then((m) => m.ForbiddenPage),
          ),
          page('/404', 'pages.notFound', () =>
            import('../features/errors/NotFoundPage.tsx').then((m) => m.NotFoundPage),
          ),
          page('*', 'pages.notFound', () => import('../features/errors/NotFoundPage.tsx').then((m) => m.NotFoundPage)),
        ],
      },
      page('/logout', 'pages.logout', () => import('../features/auth/LogoutPage.tsx').then((m) => m.LogoutPage)),
      {
        path: '/system',
        element: <AreaLayout area="system" />,
        children: [
          redirect('/system/overview'),
          page('overview', 'pages.systemOverview', () =>
            import('../features/msps/SystemOverviewPage.tsx').then((m) => m.SystemOverviewPage),
          ),
        ],
      },
      {
        path: '/sales',
        element: <AreaLayout area="sales" />,
        children: [
          redirect('/sales/msps'),
          page('msps', 'pages.salesMsps', () =>
            import('../features/msps/SalesMspsPage.tsx').then((m) => m.SalesMspsPage),
          ),
        ],
      },
      {
        path: '/msp',
        element: <AreaLayout area="msp" />,
        children: [
          redirect('/msp/overview'),
          page('overview', 'pages.mspOverview', () =>
            import('../features/customers/MspOverviewPage.tsx').then((m) => m.MspOverviewPage),
          ),
        ],
      },
      {
        path: '/customer',
        element: <AreaLayout area="customer" />,
        children: [
          redirect('/customer/overview'),
          page('overview', 'pages.customerOverview', () =>
            import('../features/stats/CustomerOverviewPage.tsx').then((m) => m.CustomerOverviewPage),
          ),
          page('content_filtering/policies', 'pages.policies', () =>
            import('../features/policies/PoliciesPage.tsx').then((m) => m.PoliciesPage),
          ),
          page('content_filtering/policies/:id', 'pages.policy', () =>
            import('../features/policies/PolicyDetailPage.tsx').then((m) => m.PolicyDetailPage),
          ),
          page('environment/locations', 'pages.locations', () =>
            import('../features/locations/LocationsPage.tsx').then((m) => m.LocationsPage),
          ),
        ],
      },
      {
        path: '/profile',
        element: <AreaLayout area="profile" />,
        children: [
          page(undefined, 'pages.profile', () =>
            import('../features/profile/ProfilePage.tsx').then((m) => m.ProfilePage),
          ),
        ],
      },
    ],
  },
];

/** Creates the browser router over the route table. */
export function createAppRouter() {
  return createBrowserRouter(routes);
}

/** The router type, for code that navigates outside React (the global response handler). */
export type AppRouter = ReturnType<typeof createAppRouter>;
