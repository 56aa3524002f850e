import { z } from 'zod';
import { Role } from '../roles.ts';
import { defineEndpoint } from './define.ts';

const tag = 'phones';
/** A customer's admins, its MSP's and the system's (scope `customer`: path `id` must be visible). */
const access = { scope: 'customer', roles: [Role.System, Role.Msp, Role.Customer] } as const;

/**
 * What a phone is set up with (docs/agent.md "Phones"): the operator's public DoH base URL
 * (`--doh-public-url`; the console adds `/dns-query/{key}`) and DoT host-name suffix
 * (`--dot-hostname`; the console shows `<dotLabel(key)>.<suffix>`, port 853); null when the operator
 * has not set it.
 */
export const phoneSetupSchema = z.object({
  doh_url: z.string().nullable(),
  dot_hostname: z.string().nullable(),
});
export type PhoneSetup = z.infer<typeof phoneSetupSchema>;

/** `{id}` customer and `{deviceId}` device. */
export const phoneDeviceParamsSchema = z.object({
  id: z.coerce.number().int().positive(),
  deviceId: z.coerce.number().int().positive(),
});

/** `{id}` customer, `{type}` a keyed location type that resolves by key (`roaming`, `virtual`), `{locId}` location. */
export const phoneLocationParamsSchema = z.object({
  id: z.coerce.number().int().positive(),
  type: z.enum(['roaming', 'virtual']),
  locId: z.coerce.number().int().positive(),
});

/** The file name a profile is saved under. */
export const MOBILECONFIG_FILE_NAME = 'cordon-dns.mobileconfig';

/**
 * Phone set-up (docs/agent.md "Phones"): the settings the console shows on the device and location
 * pages, and Apple configuration profiles (`.mobileconfig`, media type
 * `application/x-apple-aspen-config`, `content-disposition: attachment`) whose
 * `com.apple.dnsSettings.managed` payload sets DoH with the device's or location's key. A profile
 * answers 404 when the operator set no public DoH URL; the schema below describes the XML text.
 */
export const phoneEndpoints = {
  settings: defineEndpoint({
    method: 'GET',
    path: '/users/:id/phone-setup',
    params: z.object({ id: z.coerce.number().int().positive() }),
    response: phoneSetupSchema,
    status: 200,
    access,
    tag,
    summary: "The public DoH URL and DoT host-name suffix phones are set up with (the operator's settings).",
  }),
  deviceProfile: defineEndpoint({
    method: 'GET',
    path: '/users/:id/phone-setup/devices/:deviceId/mobileconfig',
    params: phoneDeviceParamsSchema,
    response: z.string(),
    status: 200,
    access,
    tag,
    summary: "An Apple configuration profile (.mobileconfig) setting DoH with the device's key.",
  }),
  locationProfile: defineEndpoint({
    method: 'GET',
    path: '/users/:id/phone-setup/locations/:type/:locId/mobileconfig',
    params: phoneLocationParamsSchema,
    response: z.string(),
    status: 200,
    access,
    tag,
    summary: "An Apple configuration profile (.mobileconfig) setting DoH with a roaming or virtual location's key.",
  }),
} as const;
