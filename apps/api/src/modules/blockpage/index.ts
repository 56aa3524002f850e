import { defineModule } from '../../http/module.ts';
import { registerBlockPageRoutes } from './routes.ts';

const body = () => ({ title: 'Hijacked' });

/** Block-page branding (spec-notes §7 `/ui/blockpage`): the customer's, MSP's and system's texts of the block page. */
export const blockPageModule = defineModule({
  name: 'blockpage',
  resources: ['blockpage'],
  register: registerBlockPageRoutes,
  isolationCases: {
    'blockpage.get': [
      { query: (_, b) => ({ user_id: b.customerId }), msp: 404, customer: 404, sales: 403 },
      { query: (_, b) => ({ msp_id: b.mspId }), msp: 404, customer: 404, sales: 403 },
    ],
    'blockpage.set': [
      { query: (_, b) => ({ user_id: b.customerId }), body, msp: 404, customer: 404, sales: 403 },
      { query: (_, b) => ({ msp_id: b.mspId }), body, msp: 404, customer: 404, sales: 403 },
    ],
    // A foreign owner is refused before the upload is read, so no file is needed to prove it.
    'blockpage.setLogo': [
      { query: (_, b) => ({ user_id: b.customerId }), msp: 404, customer: 404, sales: 403 },
      { query: (_, b) => ({ msp_id: b.mspId }), msp: 404, customer: 404, sales: 403 },
    ],
    'blockpage.removeLogo': [
      { query: (_, b) => ({ user_id: b.customerId }), msp: 404, customer: 404, sales: 403 },
      { query: (_, b) => ({ msp_id: b.mspId }), msp: 404, customer: 404, sales: 403 },
    ],
    'blockpage.remove': [
      { query: (_, b) => ({ user_id: b.customerId }), msp: 404, customer: 404, sales: 403 },
      { query: (_, b) => ({ msp_id: b.mspId }), msp: 404, customer: 404, sales: 403 },
    ],
  },
  topics: ['blockpages'],
});
