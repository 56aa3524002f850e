import { defineModule } from '../../http/module.ts';
import { registerDeviceRoutes, registerPublicDeviceRoutes } from './routes.ts';

const json = () => ({ configuration: '{"filters":[]}' });

/**
 * Devices (spec-notes §7 "Devices"): a customer's devices, its install key and device configuration, and
 * the agent's public enrolment and heartbeat (docs/decisions.md "Environment").
 */
export const deviceModule = defineModule({
  name: 'devices',
  resources: ['devices'],
  registerPublic: registerPublicDeviceRoutes,
  register: registerDeviceRoutes,
  isolationCases: {
    'devices.list': [{ params: (_, b) => ({ id: b.customerId }), msp: 404, customer: 404, sales: 403 }],
    'devices.getConfig': [{ params: (_, b) => ({ id: b.customerId }), msp: 404, customer: 404, sales: 403 }],
    'devices.updateConfig': [
      {
        params: (_, b) => ({ id: b.customerId }),
        body: () => ({ policy_mode: 'group' }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: "own customer, another tenant's policy and exception: field errors",
        params: (a) => ({ id: a.customerId }),
        body: (_, b) => ({ policy_id: b.policyId }),
        msp: 400,
        customer: 400,
      },
      {
        note: "own customer, another tenant's device exception",
        params: (a) => ({ id: a.customerId }),
        body: (_, b) => ({ device_exception_id: b.deviceExceptionId }),
        msp: 400,
        customer: 400,
      },
    ],
    'devices.getAdvanced': [{ params: (_, b) => ({ id: b.customerId }), msp: 404, customer: 404, sales: 403 }],
    'devices.setAdvanced': [
      { params: (_, b) => ({ id: b.customerId }), body: json, msp: 404, customer: 404, sales: 403 },
    ],
    'devices.resetAdvanced': [{ params: (_, b) => ({ id: b.customerId }), msp: 404, customer: 404, sales: 403 }],
    'devices.regenerateKey': [{ params: (_, b) => ({ id: b.customerId }), msp: 404, customer: 404, sales: 403 }],
    'devices.get': [
      { params: (_, b) => ({ id: b.customerId, deviceId: b.deviceId }), msp: 404, customer: 404, sales: 403 },
      {
        note: 'own customer, foreign device',
        params: (a, b) => ({ id: a.customerId, deviceId: b.deviceId }),
        msp: 404,
        customer: 404,
      },
    ],
    'devices.update': [
      {
        params: (_, b) => ({ id: b.customerId, deviceId: b.deviceId }),
        body: () => ({ name: 'Hijacked' }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: 'own customer, foreign device',
        params: (a, b) => ({ id: a.customerId, deviceId: b.deviceId }),
        body: () => ({ name: 'Hijacked' }),
        msp: 404,
        customer: 404,
      },
      {
        note: "own device, another tenant's device exception: a field error",
        params: (a) => ({ id: a.customerId, deviceId: a.deviceId }),
        body: (_, b) => ({ device_exception_id: b.deviceExceptionId }),
        msp: 400,
        customer: 400,
      },
    ],
    'devices.getUsers': [
      { params: (_, b) => ({ id: b.customerId, deviceId: b.deviceId }), msp: 404, customer: 404, sales: 403 },
      {
        note: 'own customer, foreign device',
        params: (a, b) => ({ id: a.customerId, deviceId: b.deviceId }),
        msp: 404,
        customer: 404,
      },
    ],
    'devices.setUsers': [
      {
        params: (_, b) => ({ id: b.customerId, deviceId: b.deviceId }),
        body: () => ({ user_ids: [] }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: 'own customer, foreign device',
        params: (a, b) => ({ id: a.customerId, deviceId: b.deviceId }),
        body: () => ({ user_ids: [] }),
        msp: 404,
        customer: 404,
      },
      {
        note: "own device, another tenant's internal user: a field error",
        params: (a) => ({ id: a.customerId, deviceId: a.deviceId }),
        body: (_, b) => ({ user_ids: [b.internalUserId] }),
        msp: 400,
        customer: 400,
      },
    ],
    'devices.remove': [
      { params: (_, b) => ({ id: b.customerId, deviceId: b.deviceId }), msp: 404, customer: 404, sales: 403 },
      {
        note: 'own customer, foreign device',
        params: (a, b) => ({ id: a.customerId, deviceId: b.deviceId }),
        msp: 404,
        customer: 404,
      },
    ],
    'devices.setDeviceAdvanced': [
      {
        params: (_, b) => ({ id: b.customerId, deviceId: b.deviceId }),
        body: json,
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: 'own customer, foreign device',
        params: (a, b) => ({ id: a.customerId, deviceId: b.deviceId }),
        body: json,
        msp: 404,
        customer: 404,
      },
    ],
    'devices.resetDeviceAdvanced': [
      {
        params: (_, b) => ({ id: b.customerId, deviceId: b.deviceId }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: 'own customer, foreign device',
        params: (a, b) => ({ id: a.customerId, deviceId: b.deviceId }),
        msp: 404,
        customer: 404,
      },
    ],
  },
  topics: ['devices', 'groups'],
});
