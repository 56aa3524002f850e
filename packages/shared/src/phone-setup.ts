/**
 * Phone set-up (docs/agent.md "Phones"): the DNS-over-TLS host name a phone's secure-DNS setting
 * takes (Android's Private DNS), the DoH URL with a key, and the Apple configuration profile that
 * sets DoH on iOS and macOS. Shared by the resolver (reading a key back from the TLS server name),
 * the API (serving the profile) and the console (showing the host name). Pure, no I/O.
 */

/** The port of DNS over TLS (RFC 7858 §3.1). */
export const DOT_PORT = 853;

/** A device or location key as the DoH path and the EDNS(0) option carry it: 1–128 of `A–Z a–z 0–9 - _`. */
const KEY = /^[A-Za-z0-9_-]{1,128}$/;

/** The RFC 4648 §6 base32 alphabet, lower case (DNS names compare case-insensitively, RFC 4343). */
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** Longest DNS label, octets (RFC 1035 §2.3.4). */
const MAX_LABEL = 63;

/**
 * The DNS label that carries `key` in a DoT host name: base32 (RFC 4648 §6, lower case, no
 * padding) of the key's ASCII text. Keys are base64url (mixed case, `_`), which a host name cannot
 * carry faithfully: TLS clients and certificate checks treat host names case-insensitively
 * (RFC 6066 §3, RFC 6125 §6.4.1) and a wildcard certificate matches letters, digits and `-` only.
 * A 32-character key (the ones Cordon issues) gives 52 characters.
 * @returns the label, or null when `key` is not a key or its label would exceed 63 octets (keys over 39 characters)
 */
export function dotLabel(key: string): string | null {
  if (!KEY.test(key) || Math.ceil((key.length * 8) / 5) > MAX_LABEL) return null;
  let out = '';
  let bits = 0;
  let value = 0;
  for (let i = 0; i < key.length; i++) {
    value = (value << 8) | key.charCodeAt(i);
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/**
 * The key a DoT label carries ({@link dotLabel} reversed), any case.
 * @returns the key, or null when `label` is not the base32 of a key (wrong alphabet or length,
 *   non-zero padding bits, or a decoded text that is not a key)
 */
export function keyFromDotLabel(label: string): string | null {
  if (label.length === 0 || label.length > MAX_LABEL) return null;
  const text = label.toLowerCase();
  let key = '';
  let bits = 0;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const digit = BASE32.indexOf(text[i]!);
    if (digit < 0) return null;
    value = (value << 5) | digit;
    bits += 5;
    if (bits >= 8) {
      key += String.fromCharCode((value >>> (bits - 8)) & 255);
      bits -= 8;
      value &= (1 << bits) - 1;
    }
  }
  // Canonical only (RFC 4648 §3.5): the leftover bits are fewer than 5 and zero.
  if (bits >= 5 || value !== 0) return null;
  return KEY.test(key) ? key : null;
}

/**
 * The host name a phone is given for DNS over TLS: `<dotLabel(key)>.<suffix>` (docs/agent.md
 * "DoT"; the operator's `--dot-hostname`, e.g. `dot.filter.example.net`, with a wildcard DNS
 * record `*.dot.filter.example.net`).
 * @returns null when the key has no label ({@link dotLabel}) or the name would exceed 253 characters (RFC 1035 §2.3.4)
 */
export function dotHostName(key: string, suffix: string): string | null {
  const label = dotLabel(key);
  if (label === null) return null;
  const name = `${label}.${suffix.replace(/^\.+|\.+$/g, '').toLowerCase()}`;
  return name.length <= 253 ? name : null;
}

/**
 * The key a TLS server name (SNI, RFC 6066 §3) names for DoT: its leftmost label when the rest is
 * `suffix` (any case; with `suffix` null, any name of two labels or more), decoded by
 * {@link keyFromDotLabel}, else the label itself as a key (a client that sends the key as typed).
 * @returns the candidate keys, best first (the caller checks which one names a device or a location); [] for none
 */
export function dotKeyCandidates(servername: string, suffix: string | null): string[] {
  const name = servername.replace(/\.$/, '');
  const dot = name.indexOf('.');
  if (dot <= 0) return [];
  const rest = name.slice(dot + 1).toLowerCase();
  if (suffix !== null && rest !== suffix.replace(/^\.+|\.+$/g, '').toLowerCase()) return [];
  const label = name.slice(0, dot);
  const out: string[] = [];
  const decoded = keyFromDotLabel(label);
  if (decoded !== null) out.push(decoded);
  if (KEY.test(label) && label !== decoded) out.push(label);
  return out;
}

/**
 * The DoH URL of a key: `<base>/dns-query/<key>` (docs/agent.md "DoH"), `base` being the
 * operator's public DoH URL (`--doh-public-url`) with or without a trailing slash.
 */
export function dohQueryUrl(base: string, key: string): string {
  return `${base.replace(/\/+$/, '')}/dns-query/${key}`;
}

/** The media type of Apple configuration profiles (`.mobileconfig`). */
export const MOBILECONFIG_MEDIA_TYPE = 'application/x-apple-aspen-config';

/** What {@link appleDnsProfile} writes. */
export interface AppleDnsProfileInput {
  /** The DoH URL with the key ({@link dohQueryUrl}); `https:` only. */
  serverUrl: string;
  /** The profile's name in Settings, e.g. "Cordon DNS — Alice's iPhone". */
  displayName: string;
  /** Reverse-DNS identifier, stable per device or location so a new download replaces the old profile. */
  identifier: string;
  /** Two RFC 4122 UUIDs: the profile's and its DNS payload's. */
  profileUuid: string;
  payloadUuid: string;
  /** Shown under the name in Settings. */
  description?: string;
  /** The organisation shown in Settings. */
  organization?: string;
}

/** Escapes text for XML character data (XML 1.0 §2.4); control characters other than tab and newlines are dropped (§2.2). */
function xmlText(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/**
 * An Apple configuration profile (`.mobileconfig`, an XML property list) with one
 * `com.apple.dnsSettings.managed` payload: `DNSSettings` with `DNSProtocol` `HTTPS` and
 * `ServerURL` (Apple's Configuration Profile Reference, "DNSSettings"; iOS 14 and macOS 11 on).
 * The profile is unsigned: the phone shows it as "Not verified" (docs/agent.md "Phones").
 * @throws TypeError when `serverUrl` is not an https URL or a UUID is not one
 */
export function appleDnsProfile(p: AppleDnsProfileInput): string {
  if (!/^https:\/\/[^\s/?#]+\/\S*$/.test(p.serverUrl)) throw new TypeError(`not an https URL: ${p.serverUrl}`);
  const uuid = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;
  if (!uuid.test(p.profileUuid) || !uuid.test(p.payloadUuid)) throw new TypeError('PayloadUUID must be a UUID');
  const s = (key: string, value: string, indent: string) =>
    `${indent}<key>${key}</key>\n${indent}<string>${xmlText(value)}</string>\n`;
  const i2 = '\t\t\t';
  const i3 = '\t\t\t\t';
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n' +
    '<plist version="1.0">\n<dict>\n' +
    '\t<key>PayloadContent</key>\n\t<array>\n\t\t<dict>\n' +
    `${i2}<key>DNSSettings</key>\n${i2}<dict>\n` +
    s('DNSProtocol', 'HTTPS', i3) +
    s('ServerURL', p.serverUrl, i3) +
    `${i2}</dict>\n` +
    s('PayloadDisplayName', p.displayName, i2) +
    s('PayloadIdentifier', `${p.identifier}.dns`, i2) +
    s('PayloadType', 'com.apple.dnsSettings.managed', i2) +
    s('PayloadUUID', p.payloadUuid.toUpperCase(), i2) +
    `${i2}<key>PayloadVersion</key>\n${i2}<integer>1</integer>\n` +
    '\t\t</dict>\n\t</array>\n' +
    (p.description ? s('PayloadDescription', p.description, '\t') : '') +
    s('PayloadDisplayName', p.displayName, '\t') +
    s('PayloadIdentifier', p.identifier, '\t') +
    (p.organization ? s('PayloadOrganization', p.organization, '\t') : '') +
    '\t<key>PayloadRemovalDisallowed</key>\n\t<false/>\n' +
    s('PayloadType', 'Configuration', '\t') +
    s('PayloadUUID', p.profileUuid.toUpperCase(), '\t') +
    '\t<key>PayloadVersion</key>\n\t<integer>1</integer>\n' +
    '</dict>\n</plist>\n'
  );
}
