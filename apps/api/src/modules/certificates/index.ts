import { defineModule } from '../../http/module.ts';
import { registerCertificateRoutes } from './routes.ts';

/** The deployment's root CA certificate download (spec-notes §7 "UI and tools"; docs/architecture.md "Block page"). */
export const certificateModule = defineModule({
  name: 'certificates',
  resources: ['certificates'],
  register: registerCertificateRoutes,
  isolationCases: {
    'certificates.download': [
      { note: 'one public certificate per deployment, the same for every caller: no tenant data to reach' },
    ],
  },
  topics: [],
});
