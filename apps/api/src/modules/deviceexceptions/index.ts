import { defineModule } from '../../http/module.ts';
import { registerDeviceExceptionRoutes } from './routes.ts';

const rule = () => ({ domain: 'hijack.example', rule_type: 'ByPass OTG' });

/** Device exceptions and their rules (spec-notes §7 "Device exceptions"). */
export const deviceExceptionModule = defineModule({
  name: 'deviceexceptions',
  resources: ['deviceexceptions'],
  register: registerDeviceExceptionRoutes,
  isolationCases: {
    'deviceexceptions.list': [{ query: (_, b) => ({ user_id: b.customerId }), msp: 404, customer: 404, sales: 403 }],
    'deviceexceptions.create': [
      {
        query: (_, b) => ({ user_id: b.customerId }),
        body: () => ({ name: 'Intruder' }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
    ],
    'deviceexceptions.get': [{ params: (_, b) => ({ id: b.deviceExceptionId }), msp: 404, customer: 404, sales: 403 }],
    'deviceexceptions.update': [
      {
        params: (_, b) => ({ id: b.deviceExceptionId }),
        body: () => ({ name: 'Hijacked' }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
    ],
    'deviceexceptions.remove': [
      { params: (_, b) => ({ id: b.deviceExceptionId }), msp: 404, customer: 404, sales: 403 },
      {
        note: "own exception moved to another tenant's: a field error",
        params: (a) => ({ id: a.deviceExceptionId }),
        query: (_, b) => ({ move_to_device_exception_id: b.deviceExceptionId }),
        msp: 400,
        customer: 400,
      },
    ],
    'deviceexceptions.dependants': [
      { params: (_, b) => ({ id: b.deviceExceptionId }), msp: 404, customer: 404, sales: 403 },
    ],
    'deviceexceptions.listRules': [
      { params: (_, b) => ({ id: b.deviceExceptionId }), msp: 404, customer: 404, sales: 403 },
    ],
    'deviceexceptions.createRule': [
      { params: (_, b) => ({ id: b.deviceExceptionId }), body: rule, msp: 404, customer: 404, sales: 403 },
    ],
    'deviceexceptions.updateRule': [
      {
        params: (_, b) => ({ id: b.deviceExceptionId, ruleId: b.ruleId }),
        body: rule,
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: 'own exception, foreign rule',
        params: (a, b) => ({ id: a.deviceExceptionId, ruleId: b.ruleId }),
        body: rule,
        msp: 404,
        customer: 404,
      },
    ],
    'deviceexceptions.removeRule': [
      {
        params: (_, b) => ({ id: b.deviceExceptionId, ruleId: b.ruleId }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: 'own exception, foreign rule',
        params: (a, b) => ({ id: a.deviceExceptionId, ruleId: b.ruleId }),
        msp: 404,
        customer: 404,
      },
    ],
  },
  topics: ['devices'],
});
