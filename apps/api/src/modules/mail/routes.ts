import { mail } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/**
 * Mail-settings routes (spec-notes §7 "UI and tools": `GET /mail`, `POST /mail` with `msp_id`), from
 * `Endpoints.mail`. Scope `owned`: core resolves `msp_id` (or the caller's own) and checks it in SQL.
 */
export function registerMailRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.mail;
  registerEndpoint(app, e.get, ({ caller, query }) => mail.getMailSettings(deps, caller, query));
  registerEndpoint(app, e.set, ({ caller, query, body }) => mail.setMailSettings(deps, caller, query, body));
  registerEndpoint(app, e.remove, ({ caller, query }) => mail.deleteMailSettings(deps, caller, query));
  registerEndpoint(app, e.test, ({ caller, query, body }) => mail.sendTestMail(deps, caller, query, body.to));
}
