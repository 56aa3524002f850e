import { admins } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/**
 * The console address an invitation link points to when the system mail settings name none: the
 * browser's `Origin` (sent with the console's POST), else the request's scheme and host.
 */
function originOf(request: FastifyRequest): string {
  const origin = request.headers.origin;
  if (typeof origin === 'string' && /^https?:\/\/[^/\s]+$/.test(origin)) return origin;
  return `${request.protocol}://${request.host}`;
}

/**
 * Administrator routes (spec-notes §7 "Admins"), from `Endpoints.admins`. Scope `owned`: core scopes every
 * query to the admins the caller manages and applies the role rules (docs/security.md "Accounts").
 */
export function registerAdminRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.admins;
  registerEndpoint(app, e.list, ({ caller, query }) => admins.listAdmins(deps, caller, query));
  registerEndpoint(app, e.create, ({ caller, body, request }) =>
    admins.createInvitedAdmin(deps, caller, body, originOf(request)),
  );
  registerEndpoint(app, e.get, ({ caller, params }) => admins.getAdmin(deps, caller, params.id));
  registerEndpoint(app, e.update, ({ caller, params, body }) => admins.updateAdmin(deps, caller, params.id, body));
  registerEndpoint(app, e.remove, ({ caller, params }) => admins.deleteAdmin(deps, caller, params.id));
  registerEndpoint(app, e.invite, ({ caller, params, request }) =>
    admins.resendInvitation(deps, caller, params.id, originOf(request)),
  );
}
