import { deviceexceptions } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/**
 * Device-exception routes (spec-notes §7 "Device exceptions"), from `Endpoints.deviceexceptions`. Scope
 * `owned`: the rows are addressed by their own ids (or `user_id`) and core filters every query by
 * the caller's tenant in SQL.
 */
export function registerDeviceExceptionRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.deviceexceptions;
  registerEndpoint(app, e.list, ({ caller, query }) => deviceexceptions.listDeviceExceptions(deps, caller, query));
  registerEndpoint(app, e.create, ({ caller, query, body }) =>
    deviceexceptions.createDeviceException(deps, caller, query.user_id, body),
  );
  registerEndpoint(app, e.get, ({ caller, params }) => deviceexceptions.getDeviceException(deps, caller, params.id));
  registerEndpoint(app, e.update, ({ caller, params, body }) =>
    deviceexceptions.updateDeviceException(deps, caller, params.id, body),
  );
  registerEndpoint(app, e.remove, ({ caller, params, query }) =>
    deviceexceptions.deleteDeviceException(deps, caller, params.id, query),
  );
  registerEndpoint(app, e.dependants, ({ caller, params }) =>
    deviceexceptions.deviceExceptionDependants(deps, caller, params.id),
  );
  registerEndpoint(app, e.listRules, ({ caller, params }) =>
    deviceexceptions.listExceptionRules(deps, caller, params.id),
  );
  registerEndpoint(app, e.createRule, ({ caller, params, body }) =>
    deviceexceptions.createExceptionRule(deps, caller, params.id, body),
  );
  registerEndpoint(app, e.updateRule, ({ caller, params, body }) =>
    deviceexceptions.updateExceptionRule(deps, caller, params.id, params.ruleId, body),
  );
  registerEndpoint(app, e.removeRule, ({ caller, params }) =>
    deviceexceptions.deleteExceptionRule(deps, caller, params.id, params.ruleId),
  );
}
