import { defineModule } from '../../http/module.ts';
import { registerMailRoutes } from './routes.ts';

const body = () => ({ server: 'smtp.hijack.example', from_email: 'x@hijack.example', notification_period: 'daily' });

/** Mail settings (spec-notes §7 `/mail`): the system's and each MSP's SMTP server, and the test e-mail. */
export const mailModule = defineModule({
  name: 'mail',
  resources: ['mail'],
  register: registerMailRoutes,
  isolationCases: {
    'mail.get': [{ query: (_, b) => ({ msp_id: b.mspId }), msp: 404, customer: 403, sales: 403 }],
    'mail.set': [{ query: (_, b) => ({ msp_id: b.mspId }), body, msp: 404, customer: 403, sales: 403 }],
    'mail.remove': [{ query: (_, b) => ({ msp_id: b.mspId }), msp: 404, customer: 403, sales: 403 }],
    'mail.test': [
      {
        query: (_, b) => ({ msp_id: b.mspId }),
        body: () => ({ to: 'x@hijack.example' }),
        msp: 404,
        customer: 403,
        sales: 403,
      },
    ],
  },
  topics: [],
});
