import { z } from 'zod';
import { Texts } from '../messages.ts';
import { idSchema } from './common.ts';

/**
 * Per-MSP query-log stream destinations (issue 26; docs/operations.md "Query-log streaming"
 * "Per-MSP destinations"): `syslog` is RFC 5424 over TCP or TLS (RFC 5425), `ndjson` batches of
 * JSON lines POSTed over HTTPS. dnstap stays the operator's (a Unix socket or a peer on its network).
 */
export const LOG_STREAM_FORMATS = ['syslog', 'ndjson'] as const;
export type LogStreamFormat = (typeof LOG_STREAM_FORMATS)[number];

/** Field message for a syslog address that is not `tcp://host:port` or `tls://host:port`. */
export const syslogAddressMessage = 'Please enter tcp://host:port or tls://host:port.';
/** Field message for an NDJSON address that is not an https URL without credentials. */
export const ndjsonAddressMessage = Texts.httpsUrl;
/** Field message for a CA that holds no PEM certificate. */
export const caPemMessage = 'Please paste PEM certificates (-----BEGIN CERTIFICATE-----).';

/** `host:port` or `[v6]:port`, the port 1 to 65535. */
function isHostPort(text: string): boolean {
  const m = /^\[([0-9a-fA-F:.]+)\]:(\d{1,5})$/.exec(text) ?? /^([A-Za-z0-9.-]+):(\d{1,5})$/.exec(text);
  if (!m) return false;
  const port = Number(m[2]);
  return port >= 1 && port <= 65535 && m[1] !== '';
}

/**
 * Why `address` cannot be a destination of `format`, or null when it can: syslog `tcp://host:port`
 * or `tls://host:port`; NDJSON an `https:` URL (or `http:` — the server accepts it only for a
 * loopback host, as webhooks) with a host and no user info. Only the form: the outbound guard
 * checks the addresses the host resolves to when connecting (docs/security.md "Outbound requests").
 */
export function logStreamAddressProblem(format: LogStreamFormat, address: string): string | null {
  if (format === 'syslog') {
    const m = /^(tcp|tls):\/\/(.+)$/.exec(address);
    return m && isHostPort(m[2]!) ? null : syslogAddressMessage;
  }
  try {
    const url = new URL(address);
    const ok = (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '' && url.username === '';
    return ok && url.password === '' ? null : ndjsonAddressMessage;
  } catch {
    return ndjsonAddressMessage;
  }
}

const name = z
  .string({ error: 'Please enter a name.' })
  .trim()
  .min(1, { error: 'Please enter a name.' })
  .max(100, { error: 'Must contain at most 100 characters.' })
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), { error: 'Control characters are not allowed.' });
const format = z.enum(LOG_STREAM_FORMATS, { error: 'Choose syslog or NDJSON.' });
const address = z
  .string({ error: 'Please enter an address.' })
  .trim()
  .min(1, { error: 'Please enter an address.' })
  .max(2000, { error: 'Must contain at most 2000 characters.' });
/** PEM CA certificates, or null for Node's bundle. */
const caPem = z
  .string()
  .trim()
  .max(65_536, { error: 'Must contain at most 65536 characters.' })
  .refine((s) => s === '' || s.includes('-----BEGIN CERTIFICATE-----'), { error: caPemMessage })
  .transform((s) => (s === '' ? null : s))
  .nullable();
/** The whole `Authorization` header value (e.g. `Splunk <token>`): one line of visible characters. */
const authorization = z
  .string()
  .trim()
  .max(4096, { error: 'Must contain at most 4096 characters.' })
  .refine((s) => /^[\x20-\x7e]*$/.test(s), { error: 'Must be one line of printable ASCII characters.' })
  .transform((s) => (s === '' ? null : s))
  .nullable();

/** The MSP whose destinations a list or creation means: `msp_id`, else the caller's own (an MSP admin's). */
export const logStreamOwnerQuerySchema = z.object({ msp_id: idSchema.optional() });
export type LogStreamOwnerQuery = z.infer<typeof logStreamOwnerQuerySchema>;

/** Body of `POST /log-streams`; the address is checked against the format ({@link logStreamAddressProblem}). */
export const logStreamCreateSchema = z
  .object({
    name,
    format,
    address,
    ca_pem: caPem.default(null),
    authorization: authorization.default(null),
    enabled: z.boolean().default(true),
  })
  .superRefine((b, ctx) => {
    const problem = logStreamAddressProblem(b.format, b.address);
    if (problem !== null) ctx.addIssue({ code: 'custom', path: ['address'], message: problem });
    if (b.format === 'syslog' && b.authorization !== null) {
      ctx.addIssue({ code: 'custom', path: ['authorization'], message: 'Only NDJSON destinations send a header.' });
    }
  });
export type LogStreamCreate = z.infer<typeof logStreamCreateSchema>;

/**
 * Body of `PATCH /log-streams/{id}`: any of the fields; `ca_pem` / `authorization` null (or '')
 * removes them, absent keeps them. The server checks the address against the resulting format.
 */
export const logStreamUpdateSchema = z
  .object({ name, format, address, ca_pem: caPem, authorization, enabled: z.boolean() })
  .partial()
  .refine((b) => Object.keys(b).length > 0, { error: 'Nothing to change.' });
export type LogStreamUpdate = z.infer<typeof logStreamUpdateSchema>;

/** Path params `{ id }` of one destination. */
export const logStreamParamsSchema = z.object({ id: idSchema });

/** One destination as the API shows it: the `Authorization` value only as a hint, never in full. */
export const logStreamSchema = z.object({
  id: z.number().int(),
  msp_id: z.number().int(),
  name: z.string(),
  format: z.enum(LOG_STREAM_FORMATS),
  address: z.string(),
  ca_pem: z.string().nullable(),
  /** e.g. `Splunk …f00d` (the scheme and the last 4 characters of a long credential), null when none is set. */
  authorization_hint: z.string().nullable(),
  enabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  /** When a resolver last delivered rows to it (ISO), written at most every 30 s. */
  last_delivered_at: z.string().nullable(),
  /** The last failure a resolver saw (the outbound guard's one message for a refused address), and when. */
  last_error: z.string().nullable(),
  last_error_at: z.string().nullable(),
});
export type LogStream = z.infer<typeof logStreamSchema>;
