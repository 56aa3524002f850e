import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/**
 * Webhooks (issue 26; docs/api.md "Webhooks"): an MSP's and a customer's endpoints, with their
 * delivery log. The spec names no page: it sits with the MSP's global settings and the customer's
 * settings.
 */
export const webhooksFeature = defineFeature({
  name: 'webhooks',
  routes: [
    {
      path: '/msp/global_settings/webhooks',
      area: 'msp',
      titleKey: 'pages.webhooks',
      page: () => import('./WebhooksPage.tsx').then((m) => m.MspWebhooksPage),
      menu: { labelKey: 'nav.webhooks', order: 105, parent: 'globalSettings' },
    },
    {
      path: '/customer/settings/webhooks',
      area: 'customer',
      titleKey: 'pages.webhooks',
      page: () => import('./WebhooksPage.tsx').then((m) => m.CustomerWebhooksPage),
      menu: { labelKey: 'nav.webhooks', parent: 'settings', order: 75 },
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
