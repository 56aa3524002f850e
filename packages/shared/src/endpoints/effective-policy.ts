import { Role } from '../roles.ts';
import {
  deviceEffectivePolicySchema,
  effectiveDeviceParamsSchema,
  effectiveLocationParamsSchema,
  effectivePolicySchema,
  effectiveUserParamsSchema,
  userEffectivePolicySchema,
} from '../schemas/effective-policy.ts';
import { defineEndpoint } from './define.ts';

const access = { scope: 'customer', roles: [Role.System, Role.Msp, Role.Customer] } as const;

/**
 * "Why was this blocked / allowed?" (issue 29; docs/api.md "Effective policy"): the effective policy
 * of a device, an internal user or a location of customer `{id}` and the chain that chose it, by the
 * resolver's precedence (docs/architecture.md "Identification"). Reads only.
 */
export const effectivePolicyEndpoints = {
  device: defineEndpoint({
    method: 'GET',
    path: '/users/:id/effective_policy/devices/:deviceId',
    params: effectiveDeviceParamsSchema,
    response: deviceEffectivePolicySchema,
    status: 200,
    access,
    tag: 'devices',
    summary:
      "A device's effective policy without a reported user and for each bound user, with the chain that chose it (docs/api.md Effective policy).",
  }),
  user: defineEndpoint({
    method: 'GET',
    path: '/users/:id/effective_policy/users/:userId',
    params: effectiveUserParamsSchema,
    response: userEffectivePolicySchema,
    status: 200,
    access,
    tag: 'internal_users',
    summary:
      "An internal user's own policy and group steps, and its effective policy on each device it is bound to (docs/api.md Effective policy).",
  }),
  location: defineEndpoint({
    method: 'GET',
    path: '/users/:id/effective_policy/locations/:locId',
    params: effectiveLocationParamsSchema,
    response: effectivePolicySchema,
    status: 200,
    access,
    tag: 'locations',
    summary: "A location's effective policy: its own, else the customer's default (docs/api.md Effective policy).",
  }),
} as const;
