import { defineModule } from '../../http/module.ts';
import { registerUiRoutes } from './routes.ts';

const foreignMsp = { query: (_: unknown, b: { mspId: number }) => ({ msp_id: b.mspId }) };
const support = () => ({ email: 'hijack@example.com', link: '', support_desk_url: '' });

/** Interface branding and support contacts (spec-notes §7 "UI and tools": `/ui/interface`, `/ui/support`). */
export const uiModule = defineModule({
  name: 'ui',
  resources: ['ui'],
  register: registerUiRoutes,
  isolationCases: {
    'ui.getInterface': [{ ...foreignMsp, msp: 404, customer: 404, sales: 403 }],
    // A foreign MSP is refused before the upload is read, so no file is needed to prove it.
    'ui.setInterface': [{ ...foreignMsp, msp: 404, customer: 403, sales: 403 }],
    'ui.removeLogo': [{ ...foreignMsp, msp: 404, customer: 403, sales: 403 }],
    'ui.removeTitle': [{ ...foreignMsp, msp: 404, customer: 403, sales: 403 }],
    'ui.getSupport': [{ ...foreignMsp, msp: 404, customer: 404, sales: 403 }],
    'ui.setSupport': [{ ...foreignMsp, body: support, msp: 404, customer: 403, sales: 403 }],
  },
  topics: ['blockpages'],
});
