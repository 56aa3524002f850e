/** Static routes (spec-notes §7 `/staticroutes`): a customer's conditional forwarding, domain suffix → resolver. */

export {
  createStaticRoute,
  deleteStaticRoute,
  getStaticRoute,
  listStaticRoutes,
  type StaticRouteDeps,
  updateStaticRoute,
} from './service.ts';
