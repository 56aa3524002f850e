import type { Location } from '@cordon/shared';

/** The path of a location's id page (`/customer/environment/locations/{type}/{id}`). */
export const locationPath = (l: Pick<Location, 'id' | 'type'>) => `/customer/environment/locations/${l.type}/${l.id}`;

/** What a row shows in the address column: the addresses, else the host name, else a dash. */
export function locationWhere(l: Location): string {
  const ips = l.addresses.map((a) => a.ip).join(', ');
  if (l.type === 'dynamicdns') return ips ? `${l.hostname} (${ips})` : (l.hostname ?? '—');
  return ips || '—';
}
