import https from 'node:https';
import {
  logOutboundFailure,
  OUTBOUND_FAILURE,
  OutboundError,
  type OutboundOptions,
  pinnedLookup,
  resolveOutbound,
} from '@cordon/shared/outbound';

/** Limits and trust of {@link fetchFeed}. */
export interface FetchFeedOptions {
  /** The largest body accepted, bytes (default 64 MiB: the largest public hosts lists are ~20 MiB). */
  readonly maxBytes?: number;
  /** The longest silence of the connection, ms (default 120 s). */
  readonly timeoutMs?: number;
  /** The longest wait for a connection (TCP and TLS), ms (default 10 s). */
  readonly connectTimeoutMs?: number;
  /** The longest whole download, redirects included, ms (default 10 min). */
  readonly totalTimeoutMs?: number;
  /** Extra trusted CA certificates (PEM), e.g. a private feed's; the system's are trusted anyway. */
  readonly ca?: string | readonly string[];
  /** Redirects followed, each to an `https:` URL (default 3). */
  readonly maxRedirects?: number;
  /** The outbound guard's allow list and resolver (docs/security.md "Outbound requests"); default the process-wide one. */
  readonly outbound?: OutboundOptions;
}

/**
 * Why a download failed. `message` is the text shown on the feeds page: "Not a valid URL.", "Only
 * https:// URLs are fetched." for the URL as typed, else always "The server could not be reached."
 * (docs/security.md "Outbound requests"); `detail` says what happened, for the operator's log.
 */
export class FeedFetchError extends Error {
  readonly detail: string;
  constructor(message: string, detail: string = message) {
    super(message);
    this.detail = detail;
  }
}

/** The generic failure, its detail logged for the operator. */
function unreachable(target: URL, detail: string): FeedFetchError {
  logOutboundFailure(target.toString(), detail);
  return new FeedFetchError(OUTBOUND_FAILURE, detail);
}

/**
 * Downloads a feed over HTTPS (docs/operations.md "Category feeds"): `https:` URLs only (a feed
 * decides what gets blocked, so it is never read over plain HTTP), certificates verified, at most
 * `maxBytes`, never silent for `timeoutMs`, connected within `connectTimeoutMs`, done within
 * `totalTimeoutMs`, following up to `maxRedirects` redirects to `https:` URLs. Every hop goes through
 * the outbound guard (`@cordon/shared/outbound`): its host is resolved and checked, then the
 * connection is made to the checked address.
 * @returns the body as UTF-8 text
 * @throws FeedFetchError "Not a valid URL." / "Only https:// URLs are fetched." for the URL given;
 *   "The server could not be reached." for anything else (refused address, status not 200, too
 *   large, too slow, connection or TLS failure, a redirect to a non-https URL), the cause in `detail`
 */
export async function fetchFeed(url: string, options: FetchFeedOptions = {}): Promise<string> {
  const limits: Limits = {
    maxBytes: options.maxBytes ?? 64 * 1024 * 1024,
    idleMs: options.timeoutMs ?? 120_000,
    connectMs: options.connectTimeoutMs ?? 10_000,
    deadline: Date.now() + (options.totalTimeoutMs ?? 600_000),
  };
  let parsed = parseHttpsUrl(url);
  for (let hop = 0; hop <= (options.maxRedirects ?? 3); hop++) {
    let checked: Awaited<ReturnType<typeof resolveOutbound>>;
    try {
      checked = await resolveOutbound(parsed.hostname, options.outbound);
    } catch (e) {
      if (!(e instanceof OutboundError)) throw e;
      throw unreachable(parsed, e.detail);
    }
    const answer = await getOnce(parsed, checked, limits, options.ca);
    if (answer.kind === 'body') return answer.text;
    let next: URL;
    try {
      next = new URL(answer.location, parsed);
    } catch {
      throw unreachable(parsed, `redirect to an invalid URL: ${answer.location}`);
    }
    if (next.protocol !== 'https:') throw unreachable(parsed, `redirect to a non-https URL: ${next.toString()}`);
    parsed = next;
  }
  throw unreachable(parsed, 'too many redirects');
}

interface Limits {
  readonly maxBytes: number;
  readonly idleMs: number;
  readonly connectMs: number;
  /** `Date.now()` after which the download is abandoned. */
  readonly deadline: number;
}

/** @throws FeedFetchError unless `text` is an https URL */
function parseHttpsUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new FeedFetchError('Not a valid URL.');
  }
  if (url.protocol !== 'https:') throw new FeedFetchError('Only https:// URLs are fetched.');
  return url;
}

/** One GET to the checked address: the body, or the next location of a redirect. */
function getOnce(
  url: URL,
  checked: Awaited<ReturnType<typeof resolveOutbound>>,
  limits: Limits,
  ca: FetchFeedOptions['ca'],
): Promise<{ kind: 'body'; text: string } | { kind: 'redirect'; location: string }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const done = () => {
      settled = true;
      for (const t of timers) clearTimeout(t);
    };
    const fail = (detail: string) => {
      if (settled) return;
      done();
      req.destroy();
      reject(unreachable(url, detail));
    };
    const req = https.get(
      url,
      {
        lookup: pinnedLookup(checked),
        agent: false,
        headers: { 'user-agent': 'Cordon category feed fetcher', accept: 'text/plain, */*' },
        ...(ca ? { ca: typeof ca === 'string' ? ca : [...ca] } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          if (!settled) {
            done();
            resolve({ kind: 'redirect', location: res.headers.location });
          }
          return;
        }
        if (status !== 200) {
          fail(`the server answered HTTP ${status}`);
          return;
        }
        const declared = Number(res.headers['content-length'] ?? 0);
        if (declared > limits.maxBytes) {
          fail(`declared body of ${declared} bytes exceeds ${limits.maxBytes}`);
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limits.maxBytes) {
            fail(`body exceeds ${limits.maxBytes} bytes`);
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          if (settled) return;
          done();
          resolve({ kind: 'body', text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', (err) => fail(`the download failed: ${err.message}`));
      },
    );
    timers.push(setTimeout(() => fail('no connection within the connect time'), limits.connectMs));
    req.on('socket', (socket) => {
      socket.once('secureConnect', () => clearTimeout(timers[0]));
    });
    timers.push(
      setTimeout(() => fail('no complete answer within the total time'), Math.max(0, limits.deadline - Date.now())),
    );
    req.setTimeout(limits.idleMs, () => fail(`silent for ${limits.idleMs} ms`));
    req.on('error', (err) => fail(`the download failed: ${err.message}`));
  });
}
