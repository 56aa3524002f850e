import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

/**
 * Devices (spec-notes §2 Customer, environment "devices, device id"; settings "device configuration"): the
 * enrolled devices, a device's page, and the install key with the customer's device configuration.
 */
export const devicesFeature = defineFeature({
  name: 'devices',
  routes: [
    {
      path: '/customer/environment/devices',
      area: 'customer',
      titleKey: 'pages.devices',
      page: () => import('./DevicesPage.tsx').then((m) => m.DevicesPage),
      menu: { labelKey: 'nav.devices', parent: 'environment', order: 20 },
    },
    {
      path: '/customer/environment/devices/:id',
      area: 'customer',
      titleKey: 'pages.device',
      page: () => import('./DeviceDetailPage.tsx').then((m) => m.DeviceDetailPage),
    },
    {
      path: '/customer/settings/device_configuration',
      area: 'customer',
      titleKey: 'pages.deviceConfiguration',
      page: () => import('./DeviceConfigurationPage.tsx').then((m) => m.DeviceConfigurationPage),
      menu: { labelKey: 'nav.deviceConfiguration', parent: 'settings', order: 60 },
    },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});
