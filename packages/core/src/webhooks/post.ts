import http from 'node:http';
import https from 'node:https';
import {
  logOutboundFailure,
  OUTBOUND_FAILURE,
  OutboundError,
  type OutboundOptions,
  pinnedLookup,
  resolveOutbound,
} from '@cordon/shared/outbound';

/** Limits of one webhook POST (docs/security.md "Webhooks"). */
export interface PostLimits {
  /** Connection (TCP and TLS) within, ms; default 5,000. */
  connectMs?: number;
  /** The whole exchange within, ms; default 10,000. */
  totalMs?: number;
  /** The most response bytes read (the rest is cut off, not an error), default 64 KiB. */
  maxResponseBytes?: number;
}

/**
 * The outcome of one attempt: the HTTP status (null when none came) and, on failure, what the owner's
 * delivery log shows: `HTTP <status>` when the receiver answered, else {@link OUTBOUND_FAILURE} whatever
 * the cause (a refused address, DNS, connection, TLS, time), whose detail goes to the operator's log
 * only (docs/security.md "Outbound requests": no probing of internal addresses through the log).
 */
export interface PostOutcome {
  ok: boolean;
  status: number | null;
  error: string | null;
  /** The cause of a failure without an HTTP answer, for the operator only; absent otherwise. */
  detail?: string;
}

/** A failure without an answer: the tenant's one message, the detail logged for the operator. */
function unreachable(url: string, detail: string): PostOutcome {
  logOutboundFailure(url, detail);
  return { ok: false, status: null, error: OUTBOUND_FAILURE, detail };
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
 * Never throws: every failure is an outcome ({@link PostOutcome}).
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
    return unreachable(url, 'not a valid URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return unreachable(url, 'only https:// URLs are delivered to');
  }
  let checked: Awaited<ReturnType<typeof resolveOutbound>>;
  try {
    checked = await resolveOutbound(parsed.hostname, outbound);
  } catch (err) {
    return unreachable(url, err instanceof OutboundError ? err.detail : String(err));
  }
  if (parsed.protocol === 'http:' && !isLoopback(checked.address)) {
    return unreachable(url, `http:// is only allowed to an allowed loopback address, not ${checked.address}`);
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
    const fail = (detail: string) => {
      if (!settled) finish(unreachable(url, detail));
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
        res.on('error', (err) => fail(`response failed after HTTP ${status}: ${err.message}`));
      },
    );
    const connectTimer = setTimeout(() => fail(`no connection within ${connectMs} ms`), connectMs);
    const totalTimer = setTimeout(() => fail(`no answer within ${totalMs} ms`), totalMs);
    req.on('socket', (socket) => {
      socket.once(parsed.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    });
    req.on('error', (err) => fail(`request failed: ${err.message}`));
    req.end(body);
  });
}
