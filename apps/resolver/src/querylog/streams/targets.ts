import { isIP } from 'node:net';

/**
 * A destination set by a tenant (an MSP's, docs/operations.md "Query-log streaming" "Per-MSP
 * destinations"): its host is resolved and every address checked by the outbound guard at each
 * connection, the socket connecting to the checked address (docs/security.md "Outbound requests").
 */
export interface TenantSet {
  /** The guard's allowance (`--outbound-allow`): the writer thread does not share the main thread's. */
  readonly outbound: { readonly allow: readonly string[] };
  /** Names the destination in the operator's log lines, e.g. `msp 3 stream 7`. */
  readonly owner: string;
}

/**
 * Where the query log is streamed to (docs/operations.md "Query-log streaming"). Plain data: it is
 * handed to the query-log writer thread in `workerData`.
 */
export type StreamTarget =
  /** dnstap over Frame Streams, bidirectional, on a Unix socket (`path`) or TCP (`host`, `port`). */
  | { readonly kind: 'dnstap'; readonly path?: string; readonly host?: string; readonly port?: number }
  /** RFC 5424 over TCP, or TLS (RFC 5425) when `tls`, framed by octet counting (RFC 6587 §3.4.1). */
  | {
      readonly kind: 'syslog';
      readonly host: string;
      readonly port: number;
      readonly tls: boolean;
      /** PEM CA certificates trusted for TLS instead of Node's bundle. */
      readonly ca?: string;
      /** Set for an MSP's destination. */
      readonly tenant?: TenantSet;
    }
  /**
   * NDJSON batches POSTed to `url`; `authorization` the whole `Authorization` header value (a SIEM
   * token: never logged); `ca` as for syslog.
   */
  | {
      readonly kind: 'ndjson';
      readonly url: string;
      readonly authorization?: string;
      readonly ca?: string;
      /** Set for an MSP's destination. */
      readonly tenant?: TenantSet;
    };

/**
 * What the writer thread needs for the MSPs' destinations (docs/operations.md "Query-log streaming"
 * "Per-MSP destinations"), in `workerData`: the deployment secret that opens their sealed
 * `Authorization` values (docs/security.md "Tokens and secrets at rest") and the outbound guard's
 * allowance. Without it the destinations are still read; sealed values cannot be opened (logged).
 */
export interface MspStreamsOptions {
  /** The deployment secret (the root CA secret's text) the SecretBox is made from. */
  readonly sealKey?: string;
  /** `--outbound-allow` ranges (CIDR text). */
  readonly outboundAllow?: readonly string[];
}

/** A target's name in logs and metrics: its kind and address, never a token. */
export function targetLabel(t: StreamTarget): string {
  if (t.kind !== 'dnstap' && t.tenant !== undefined)
    return `${t.tenant.owner} ${targetLabel({ ...t, tenant: undefined })}`;
  if (t.kind === 'dnstap') return t.path !== undefined ? `dnstap unix:${t.path}` : `dnstap tcp:${t.host}:${t.port}`;
  if (t.kind === 'syslog') return `syslog ${t.tls ? 'tls' : 'tcp'}://${t.host}:${t.port}`;
  const u = new URL(t.url);
  return `ndjson ${u.protocol}//${u.host}${u.pathname}`;
}

/** `host:port` or `[v6]:port` with a port from 1 to 65535. @throws Error naming what is wrong */
function hostPort(text: string, what: string): { host: string; port: number } {
  const m = /^\[([^\]]+)\]:(\d{1,5})$/.exec(text) ?? /^([^:[\]]+):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[2]) : 0;
  if (!m || port < 1 || port > 65535 || m[1]!.trim() === '') {
    throw new Error(`${what}: expected host:port (or [ipv6]:port), got "${text}"`);
  }
  if (text.startsWith('[') && isIP(m[1]!) !== 6) throw new Error(`${what}: "${m[1]}" is not an IPv6 address`);
  return { host: m[1]!, port };
}

/**
 * `--dnstap`: `unix:/absolute/path` or `tcp:host:port` (the two transports of fstrm_capture).
 * @throws Error for anything else
 */
export function parseDnstapTarget(text: string): StreamTarget {
  const t = text.trim();
  if (t.startsWith('unix:')) {
    const path = t.slice(5);
    if (!path.startsWith('/')) throw new Error(`expected unix:/absolute/path, got "${text}"`);
    // sun_path holds 108 bytes on Linux (unix(7)), the terminating zero included.
    if (Buffer.byteLength(path) > 107) throw new Error(`the socket path is longer than 107 bytes: "${path}"`);
    return { kind: 'dnstap', path };
  }
  if (t.startsWith('tcp:')) return { kind: 'dnstap', ...hostPort(t.slice(4), 'tcp:') };
  throw new Error(`expected unix:/path or tcp:host:port, got "${text}"`);
}

/**
 * `--syslog`: `tcp://host:port` or `tls://host:port` (RFC 5425's 6514 is the usual TLS port).
 * @throws Error for anything else
 */
export function parseSyslogTarget(text: string, ca?: string): StreamTarget {
  const m = /^(tcp|tls):\/\/(.+)$/.exec(text.trim());
  if (!m) throw new Error(`expected tcp://host:port or tls://host:port, got "${text}"`);
  const tls = m[1] === 'tls';
  return { kind: 'syslog', ...hostPort(m[2]!, `${m[1]}://`), tls, ...(tls && ca !== undefined ? { ca } : {}) };
}

/** Host names an `http://` stream URL may name: this machine only (a token never crosses a network in clear). */
function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * `--log-stream-url`: an `https://` URL, or `http://` to a loopback address (a local collector);
 * no user or password in it (the token goes in `CORDON_LOG_STREAM_AUTHORIZATION`).
 * @throws Error for anything else
 */
export function parseNdjsonTarget(text: string, authorization?: string, ca?: string): StreamTarget {
  let u: URL;
  try {
    u = new URL(text.trim());
  } catch {
    throw new Error(`expected an https:// URL, got "${text}"`);
  }
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && isLoopbackHost(u.hostname))) {
    throw new Error(`expected an https:// URL (http:// only to a loopback address), got "${u.protocol}//${u.host}"`);
  }
  if (u.username !== '' || u.password !== '') {
    throw new Error('the URL must not hold credentials: put the header value in CORDON_LOG_STREAM_AUTHORIZATION');
  }
  if (authorization !== undefined && /[\r\n]/.test(authorization)) {
    throw new Error('CORDON_LOG_STREAM_AUTHORIZATION must be one line');
  }
  return {
    kind: 'ndjson',
    url: u.href,
    ...(authorization !== undefined ? { authorization } : {}),
    ...(ca !== undefined && u.protocol === 'https:' ? { ca } : {}),
  };
}
