import { defineModule } from '../../http/module.ts';
import { registerStatsRoutes } from './routes.ts';

const foreignCustomer = { msp: 404, customer: 404, sales: 403 } as const;
const mspOnly = { msp: 404, customer: 403, sales: 403 } as const;
const systemOnly = { msp: 403, customer: 403, sales: 403 } as const;

/** Statistics (spec-notes §7 "Stats"): read-only, from the hourly roll-ups of the query log. */
export const statsModule = defineModule({
  name: 'stats',
  resources: ['stats'],
  register: registerStatsRoutes,
  isolationCases: {
    'stats.customerTraffic': [{ params: (_, b) => ({ id: b.customerId, day: 'today' }), ...foreignCustomer }],
    'stats.customerHistory': [{ params: (_, b) => ({ id: b.customerId, days: 5 }), ...foreignCustomer }],
    'stats.customerTop': [
      {
        params: (_, b) => ({ id: b.customerId, dim: 'domains', action: 'blocked', date: 'today' }),
        ...foreignCustomer,
      },
    ],
    'stats.customerOverview': [{ params: (_, b) => ({ id: b.customerId, date: 'today' }), ...foreignCustomer }],
    'stats.mspCustomers': [{ params: (_, b) => ({ id: b.mspId }), ...mspOnly }],
    'stats.mspBreakdown': [
      { params: (_, b) => ({ id: b.mspId }), query: () => ({ domain: 'example.com', date: '7days' }), ...mspOnly },
    ],
    'stats.mspTraffic': [{ params: (_, b) => ({ id: b.mspId, day: 'today' }), ...mspOnly }],
    'stats.mspHistory': [{ params: (_, b) => ({ id: b.mspId, days: 5 }), ...mspOnly }],
    'stats.mspTop': [
      { params: (_, b) => ({ id: b.mspId, dim: 'categories', action: 'allowed', date: 'today' }), ...mspOnly },
    ],
    // Sales admins read every MSP's totals (spec-notes §2 Sales).
    'stats.mspOverview': [{ params: (_, b) => ({ id: b.mspId, date: 'today' }), msp: 404, customer: 403 }],
    'stats.systemBreakdown': [{ query: () => ({ category: 1 }), ...systemOnly }],
    'stats.systemTraffic': [{ params: () => ({ day: 'today' }), ...systemOnly }],
    'stats.systemHistory': [{ params: () => ({ days: 5 }), ...systemOnly }],
    'stats.systemTop': [{ params: () => ({ dim: 'users', action: 'blocked', date: 'today' }), ...systemOnly }],
    'stats.systemOverview': [{ params: () => ({ date: 'today' }), ...systemOnly }],
    'stats.locationTop': [
      {
        params: (_, b) => ({ id: b.customerId, locId: b.locationId, dim: 'domains', action: 'allowed' }),
        ...foreignCustomer,
      },
      {
        note: 'own customer, foreign location',
        params: (a, b) => ({ id: a.customerId, locId: b.locationId, dim: 'categories', action: 'blocked' }),
        msp: 404,
        customer: 404,
      },
    ],
    'stats.locationOverview': [
      { params: (_, b) => ({ id: b.customerId, locId: b.locationId }), ...foreignCustomer },
      {
        note: 'own customer, foreign location',
        params: (a, b) => ({ id: a.customerId, locId: b.locationId }),
        msp: 404,
        customer: 404,
      },
    ],
  },
  topics: [],
});
