import { defineModule } from '../../http/module.ts';
import { registerFeedRoutes } from './routes.ts';

const feedBody = () => ({ name: 'Rogue feed', format: 'domains', category_id: 20 });

/** Category feeds (docs/api.md "Category feeds"): the deployment's category sources, system admin only. */
export const feedModule = defineModule({
  name: 'feeds',
  resources: ['feeds'],
  register: registerFeedRoutes,
  // Feeds belong to no tenant: every other role is refused by role before any id is looked up.
  isolationCases: {
    'feeds.list': [{ msp: 403, customer: 403, sales: 403 }],
    'feeds.create': [{ body: feedBody, msp: 403, customer: 403, sales: 403 }],
    'feeds.get': [{ params: () => ({ feedId: 1 }), msp: 403, customer: 403, sales: 403 }],
    'feeds.update': [
      { params: () => ({ feedId: 1 }), body: () => ({ name: 'x' }), msp: 403, customer: 403, sales: 403 },
    ],
    'feeds.remove': [{ params: () => ({ feedId: 1 }), msp: 403, customer: 403, sales: 403 }],
    'feeds.dependants': [{ params: () => ({ feedId: 1 }), msp: 403, customer: 403, sales: 403 }],
    'feeds.run': [{ params: () => ({ feedId: 1 }), msp: 403, customer: 403, sales: 403 }],
    'feeds.upload': [{ params: () => ({ feedId: 1 }), msp: 403, customer: 403, sales: 403 }],
  },
  topics: ['categories'],
});
