import { createHash } from 'node:crypto';
import { devices, locations } from '@cordon/core';
import {
  ApiError,
  appleDnsProfile,
  dohQueryUrl,
  Endpoints,
  MOBILECONFIG_FILE_NAME,
  MOBILECONFIG_MEDIA_TYPE,
} from '@cordon/shared';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/**
 * A UUID derived from `text` (RFC 9562 §5.8, version 8: the first 122 bits of its SHA-256), so a
 * profile downloaded twice for the same key and URL is the same file.
 */
function derivedUuid(text: string): string {
  const h = createHash('sha256').update(text).digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex').toUpperCase();
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** The profile's identifier: the DoH host reversed, then `cordon.<kind>.<id>` (stable: a new download replaces the old profile). */
function profileIdentifier(dohUrl: string, kind: 'device' | 'location', id: number): string {
  const host = new URL(dohUrl).hostname.replace(/[^A-Za-z0-9.-]/g, '');
  return `${host.split('.').reverse().join('.')}.cordon.${kind}.${id}`;
}

/**
 * The Apple profile for `key` as a download (docs/agent.md "Phones").
 * @throws ApiError ERR_NOT_FOUND when the operator set no public DoH URL (`--doh-public-url`)
 */
function sendProfile(
  deps: AppDeps,
  reply: FastifyReply,
  key: string | null,
  name: string,
  kind: 'device' | 'location',
  id: number,
): string {
  const base = deps.phoneSetup?.dohUrl ?? null;
  if (base === null) {
    throw new ApiError('ERR_NOT_FOUND', 'No public DoH URL is configured (cordon serve --doh-public-url).');
  }
  if (key === null) throw new ApiError('ERR_NOT_FOUND');
  const serverUrl = dohQueryUrl(base, key);
  const xml = appleDnsProfile({
    serverUrl,
    displayName: `Cordon DNS (${name})`,
    description: `Filters this device's DNS through Cordon over DNS-over-HTTPS (${new URL(base).host}).`,
    identifier: profileIdentifier(base, kind, id),
    profileUuid: derivedUuid(`profile ${serverUrl}`),
    payloadUuid: derivedUuid(`dns ${serverUrl}`),
  });
  reply
    .header('content-type', `${MOBILECONFIG_MEDIA_TYPE}; charset=utf-8`)
    .header('content-disposition', `attachment; filename="${MOBILECONFIG_FILE_NAME}"`)
    // The profile carries a key: never kept by a shared cache.
    .header('cache-control', 'no-store');
  return xml;
}

/**
 * Phone set-up routes (docs/agent.md "Phones") under `/users/{id}/phone-setup`, from
 * `Endpoints.phones`. Scope `customer`: the guard checks customer `id` is visible; the device and
 * the location are read through core, scoped to that customer in SQL (another customer's id is 404).
 */
export function registerPhoneRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.phones;
  registerEndpoint(app, e.settings, async () => ({
    doh_url: deps.phoneSetup?.dohUrl ?? null,
    dot_hostname: deps.phoneSetup?.dotHostname ?? null,
  }));
  registerEndpoint(app, e.deviceProfile, async ({ caller, params, reply }) => {
    const device = await devices.getDevice(deps, caller, params.id, params.deviceId);
    return sendProfile(deps, reply, device.key, device.name, 'device', device.id);
  });
  registerEndpoint(app, e.locationProfile, async ({ caller, params, reply }) => {
    const location = await locations.getLocationOfType(deps, caller, params.id, params.type, params.locId);
    return sendProfile(deps, reply, location.key, location.name, 'location', location.id);
  });
}
