import { defineModule } from '../../http/module.ts';
import { registerStatsRoutes } from './routes.ts';

/** Customer statistics (spec §7 "Stats"): read-only, from the query log. */
export const statsModule = defineModule({
  name: 'stats',
  resources: ['stats'],
  register: registerStatsRoutes,
  isolationCases: {
    'stats.customerTraffic': [
      { params: (_, b) => ({ id: b.customerId, day: 'today' }), msp: 404, customer: 404, sales: 403 },
    ],
    'stats.customerOverview': [
      { params: (_, b) => ({ id: b.customerId, date: 'today' }), msp: 404, customer: 404, sales: 403 },
    ],
  },
  topics: [],
});
