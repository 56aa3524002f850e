import { audit } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/**
 * Audit-log routes (docs/api.md "Audit log"), from `Endpoints.audit`: the list and its CSV export,
 * scoped in SQL by core (a system admin: everything; an MSP admin: its MSP and its customers).
 */
export function registerAuditRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.audit;
  registerEndpoint(app, e.list, ({ caller, query }) => audit.listAudit(deps, caller, query));
  registerEndpoint(app, e.export, async ({ caller, query, reply }) => {
    const text = await audit.exportAudit(deps, caller, query);
    reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${audit.auditExportFileName(deps.now())}"`);
    return text;
  });
}
