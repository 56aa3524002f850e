import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/**
 * Query-log streams of an MSP (issue 26; docs/operations.md "Query-log streaming" "Per-MSP
 * destinations"): the MSP's syslog and NDJSON destinations for its customers' queries. With the
 * MSP's global settings, for its admins and for the system admin viewing that MSP.
 */
export const logStreamsFeature = defineFeature({
  name: 'logstreams',
  routes: [
    {
      path: '/msp/global_settings/log_streams',
      area: 'msp',
      titleKey: 'pages.logStreams',
      page: () => import('./LogStreamsPage.tsx').then((m) => m.MspLogStreamsPage),
      menu: { labelKey: 'nav.logStreams', order: 106, parent: 'globalSettings' },
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
