import http from 'node:http';
import https from 'node:https';
import { OutboundError, type OutboundOptions, pinnedLookup, resolveOutbound } from '@cordon/shared/outbound';

/** Limits of one webhook POST (docs/security.md "Webhooks"). */
export interface PostLimits {
  /** Connection (TCP and TLS) within, ms; default 5,000. */
  connectMs?: number;
  /** The whole exchange within, ms; default 10,000. */
  totalMs?: number;
  /** The most response bytes read (the rest is cut off, not an error), default 64 KiB. */
  maxResponseBytes?: number;
}

/** The outcome of one attempt: the HTTP status (null when none came) and, on failure, why (for the owner's log). */
export interface PostOutcome {
  ok: boolean;
  status: number | null;
  error: string | null;
}

/** True for a loopback address (127/8, ::1, and their IPv4-mapped form). */
function isLoopback(address: string): boolean {
  return address === '::1' || /^(::ffff:)?127\./i.test(address);
}

/**
 * POSTs `body` (JSON) with `headers` to `url` through the outbound guard (docs/security.md
 * "Outbound requests"): the host is resolved and every address checked (internal ones refused
 * unless the operator allows them), the socket connects to the checked address, `http:` is used
 * only when that address is loopback (and therefore allowed), redirects are not followed (a 3xx is
 * a failure), connect and total time and the response size are capped. A 2xx is a success.
 * Never throws: every failure is an outcome; the detail stays in `error` (no secret is in it).
 */
export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  limits: PostLimits = {},
  outbound: OutboundOptions = {},
): Promise<PostOutcome> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, status: null, error: 'not a valid URL' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return { ok: false, status: null, error: 'only https:// URLs are delivered to' };
  }
  let checked: Awaited<ReturnType<typeof resolveOutbound>>;
  try {
    checked = await resolveOutbound(parsed.hostname, outbound);
  } catch (err) {
    return { ok: false, status: null, error: err instanceof OutboundError ? err.detail : String(err) };
  }
  if (parsed.protocol === 'http:' && !isLoopback(checked.address)) {
    return { ok: false, status: null, error: 'http:// is only allowed to an allowed loopback address' };
  }
  const connectMs = limits.connectMs ?? 5000;
  const totalMs = limits.totalMs ?? 10_000;
  const maxBytes = limits.maxResponseBytes ?? 64 * 1024;
  const client = parsed.protocol === 'https:' ? https : http;
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(totalTimer);
      req.destroy();
      resolve(outcome);
    };
    const req = client.request(
      parsed,
      {
        method: 'POST',
        lookup: pinnedLookup(checked),
        agent: false,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Cordon-Webhooks/1',
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let size = 0;
        const done = () => {
          const ok = status >= 200 && status < 300;
          const error = ok
            ? null
            : status >= 300 && status < 400
              ? `HTTP ${status}: redirects are not followed`
              : `HTTP ${status}`;
          finish({ ok, status, error });
        };
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) done();
        });
        res.on('end', done);
        res.on('error', (err) => finish({ ok: false, status, error: `response failed: ${err.message}` }));
      },
    );
    const connectTimer = setTimeout(
      () => finish({ ok: false, status: null, error: `no connection within ${connectMs} ms` }),
      connectMs,
    );
    const totalTimer = setTimeout(
      () => finish({ ok: false, status: null, error: `no answer within ${totalMs} ms` }),
      totalMs,
    );
    req.on('socket', (socket) => {
      socket.once(parsed.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    });
    req.on('error', (err) => finish({ ok: false, status: null, error: `request failed: ${err.message}` }));
    req.end(body);
  });
}
