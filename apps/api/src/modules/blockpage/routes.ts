import { blockpage } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/**
 * Block-page branding routes (spec §7 `GET|POST|DELETE /ui/blockpage`), from `Endpoints.blockpage`.
 * Scope `owned`: the owner comes from `user_id` / `msp_id` or the caller, checked visible by core in SQL.
 */
export function registerBlockPageRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.blockpage;
  registerEndpoint(app, e.get, ({ caller, query }) => blockpage.getBlockPage(deps, caller, query));
  registerEndpoint(app, e.set, ({ caller, query, body }) => blockpage.setBlockPage(deps, caller, query, body));
  registerEndpoint(app, e.remove, ({ caller, query }) => blockpage.deleteBlockPage(deps, caller, query));
}
