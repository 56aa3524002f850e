import { effective } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import { defineModule } from '../../http/module.ts';
import type { AppDeps } from '../../types.ts';

/**
 * `GET /users/{id}/effective_policy/{devices|users|locations}/{…}` (issue 29; docs/api.md "Effective
 * policy"): core checks the customer against the caller's scope and reads every row by customer id.
 */
function registerEffectivePolicyRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.effectivepolicy;
  registerEndpoint(app, e.device, ({ caller, params }) =>
    effective.effectiveOfDevice(deps, caller, params.id, params.deviceId),
  );
  registerEndpoint(app, e.user, ({ caller, params }) =>
    effective.effectiveOfUser(deps, caller, params.id, params.userId),
  );
  registerEndpoint(app, e.location, ({ caller, params }) =>
    effective.effectiveOfLocation(deps, caller, params.id, params.locId),
  );
}

/** "Why was this blocked / allowed?": the effective policy of a device, a user or a location and its chain. */
export const effectivePolicyModule = defineModule({
  name: 'effectivepolicy',
  resources: ['effectivepolicy'],
  register: registerEffectivePolicyRoutes,
  isolationCases: {
    'effectivepolicy.device': [
      { params: (_, b) => ({ id: b.customerId, deviceId: b.deviceId }), msp: 404, customer: 404, sales: 403 },
      {
        note: 'own customer, foreign device',
        params: (a, b) => ({ id: a.customerId, deviceId: b.deviceId }),
        msp: 404,
        customer: 404,
      },
    ],
    'effectivepolicy.user': [
      { params: (_, b) => ({ id: b.customerId, userId: b.internalUserId }), msp: 404, customer: 404, sales: 403 },
      {
        note: 'own customer, foreign user',
        params: (a, b) => ({ id: a.customerId, userId: b.internalUserId }),
        msp: 404,
        customer: 404,
      },
    ],
    'effectivepolicy.location': [
      { params: (_, b) => ({ id: b.customerId, locId: b.virtualLocationId }), msp: 404, customer: 404, sales: 403 },
      {
        note: 'own customer, foreign location',
        params: (a, b) => ({ id: a.customerId, locId: b.virtualLocationId }),
        msp: 404,
        customer: 404,
      },
    ],
  },
  topics: [],
});
