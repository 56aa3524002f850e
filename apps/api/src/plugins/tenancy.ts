import { tenancy } from '@cordon/core';
import { ApiError, Role } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../types.ts';

/**
 * The one tenancy guard (docs/architecture.md "Tenancy"). Registered in the authenticated context
 * after authentication:
 * - at registration, refuses any route without `config.scope` and `config.roles` (no opt-in);
 * - on request, a role outside `config.roles` → 403 `Client error: Forbidden.`;
 * - after validation, for scope `msp`/`customer`, the MSP/customer of path param `id` must be
 *   visible to the caller (core's tenancy visibility checks), else 404 exactly as for a missing id;
 *   an MSP admin's own MSP and a customer admin's own customer are visible without a lookup (its
 *   admin row, just read, references it with a cascading foreign key).
 * Core's repositories still filter every tenant-owned query by the caller's scope in SQL.
 */
export function registerTenancyGuard(app: FastifyInstance, deps: AppDeps): void {
  app.addHook('onRoute', (route) => {
    const config = route.config as { scope?: unknown; roles?: unknown } | undefined;
    if (!config?.scope || !Array.isArray(config.roles) || config.roles.length === 0) {
      throw new Error(`Route ${route.method} ${route.url} must declare config.scope and config.roles`);
    }
  });

  app.addHook('onRequest', async (request) => {
    const { roles } = request.routeOptions.config;
    if (!roles?.includes(request.principal.role)) throw new ApiError('ERR_FORBIDDEN');
  });

  app.addHook('preHandler', async (request) => {
    const { scope } = request.routeOptions.config;
    if (scope !== 'msp' && scope !== 'customer') return;
    const id = (request.params as { id?: unknown }).id;
    if (typeof id !== 'number') throw new ApiError('ERR_NOT_FOUND');
    // The caller's own MSP or customer needs no lookup: the admin row authentication has just read
    // references it, and goes with it (a cascading foreign key; bench/README.md "API reads").
    const { role, mspId, customerId } = request.principal;
    if (scope === 'msp' ? role === Role.Msp && mspId === id : role === Role.Customer && customerId === id) return;
    const tenantScope = tenancy.scopeOf(request.principal);
    const visible =
      scope === 'msp'
        ? await tenancy.mspVisible(deps.handle.db, tenantScope, request.principal.role, id)
        : await tenancy.customerVisible(deps.handle.db, tenantScope, id);
    if (!visible) throw new ApiError('ERR_NOT_FOUND');
  });
}
