import { devices } from '@cordon/core';
import { ApiError, type DeviceConfig, Endpoints } from '@cordon/shared';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';
import { createAgentLimiter, ENROL_RATE, HEARTBEAT_RATE } from './agent-limits.ts';

/**
 * Device routes (spec-notes §7 "Devices") under `/users/{id}/devices`, from `Endpoints.devices`. Scope
 * `customer`: the guard checks customer `id` is visible; core scopes every query by tenant and
 * customer in SQL. The static `config` and `key` paths are registered before `{deviceId}`.
 */
export function registerDeviceRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.devices;
  registerEndpoint(app, e.list, ({ caller, params, query }) => devices.listDevices(deps, caller, params.id, query));
  // The agent's --doh URL rides along, so the console can show a command that runs as shown.
  const withAgentDoh = async (config: Promise<DeviceConfig>) => ({
    ...(await config),
    agent_doh_url: deps.phoneSetup?.dohUrl ?? null,
  });
  registerEndpoint(app, e.getConfig, ({ caller, params }) =>
    withAgentDoh(devices.getDeviceConfig(deps, caller, params.id)),
  );
  registerEndpoint(app, e.updateConfig, ({ caller, params, body }) =>
    withAgentDoh(devices.updateDeviceConfig(deps, caller, params.id, body)),
  );
  registerEndpoint(app, e.getAdvanced, ({ caller, params }) => devices.customerAdvanced(deps, caller, params.id));
  registerEndpoint(app, e.setAdvanced, ({ caller, params, body }) =>
    devices.customerAdvanced(deps, caller, params.id, body.configuration),
  );
  registerEndpoint(app, e.resetAdvanced, ({ caller, params }) =>
    devices.customerAdvanced(deps, caller, params.id, null),
  );
  registerEndpoint(app, e.regenerateKey, ({ caller, params }) => devices.regenerateInstallKey(deps, caller, params.id));
  registerEndpoint(app, e.get, ({ caller, params }) => devices.getDevice(deps, caller, params.id, params.deviceId));
  registerEndpoint(app, e.update, ({ caller, params, body }) =>
    devices.updateDevice(deps, caller, params.id, params.deviceId, body),
  );
  registerEndpoint(app, e.getUsers, ({ caller, params }) =>
    devices.getDeviceUsers(deps, caller, params.id, params.deviceId),
  );
  registerEndpoint(app, e.setUsers, ({ caller, params, body }) =>
    devices.setDeviceUsers(deps, caller, params.id, params.deviceId, body),
  );
  registerEndpoint(app, e.remove, ({ caller, params }) =>
    devices.deleteDevice(deps, caller, params.id, params.deviceId),
  );
  registerEndpoint(app, e.setDeviceAdvanced, ({ caller, params, body }) =>
    devices.setDeviceAdvanced(deps, caller, params.id, params.deviceId, body.configuration),
  );
  registerEndpoint(app, e.resetDeviceAdvanced, ({ caller, params }) =>
    devices.setDeviceAdvanced(deps, caller, params.id, params.deviceId, null),
  );
}

/**
 * The agent's public calls (docs/decisions.md "Environment"): no token; the install key (enrolment)
 * or the device key (heartbeat) in the body authenticates, and the client address is recorded. Each
 * is rate-limited per key presented (docs/security.md "Identity claims": {@link ENROL_RATE},
 * {@link HEARTBEAT_RATE}); over it: 429 `ERR_RATE_LIMITED` with `Retry-After`, before any database work.
 */
export function registerPublicDeviceRoutes(app: FastifyInstance, deps: AppDeps): void {
  const enrols = createAgentLimiter(ENROL_RATE, deps.now);
  const heartbeats = createAgentLimiter(HEARTBEAT_RATE, deps.now);
  const limit = (waitMs: number, reply: FastifyReply) => {
    if (waitMs === 0) return;
    reply.header('retry-after', String(Math.ceil(waitMs / 1000)));
    throw new ApiError('ERR_RATE_LIMITED');
  };
  registerEndpoint(app, Endpoints.devices.enrol, ({ body, request, reply }) => {
    limit(enrols.take(body.install_key), reply);
    return devices.enrolDevice(deps, body, request.ip);
  });
  registerEndpoint(app, Endpoints.devices.heartbeat, ({ body, request, reply }) => {
    limit(heartbeats.take(body.device_key), reply);
    return devices.heartbeat(deps, body, request.ip);
  });
}
