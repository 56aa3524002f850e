import https from 'node:https';

/** Limits and trust of {@link fetchFeed}. */
export interface FetchFeedOptions {
  /** The largest body accepted, bytes (default 64 MiB: the largest public hosts lists are ~20 MiB). */
  readonly maxBytes?: number;
  /** The longest silence of the connection, ms (default 120 s). */
  readonly timeoutMs?: number;
  /** Extra trusted CA certificates (PEM), e.g. a private feed's; the system's are trusted anyway. */
  readonly ca?: string | readonly string[];
  /** Redirects followed, each to an `https:` URL (default 3). */
  readonly maxRedirects?: number;
}

/** Why a download failed, in words an operator can act on (shown on the feeds page). */
export class FeedFetchError extends Error {}

/**
 * Downloads a feed over HTTPS (docs/operations.md "Category feeds"): `https:` URLs only (a feed
 * decides what gets blocked, so it is never read over plain HTTP), certificates verified, at most
 * `maxBytes`, never silent for `timeoutMs`, following up to `maxRedirects` redirects to `https:` URLs.
 * @returns the body as UTF-8 text
 * @throws FeedFetchError when the URL is not https, the status is not 200, the body is too large,
 *   the time runs out, or the connection or TLS handshake fails
 */
export async function fetchFeed(url: string, options: FetchFeedOptions = {}): Promise<string> {
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 120_000;
  let target = url;
  for (let hop = 0; hop <= (options.maxRedirects ?? 3); hop++) {
    const parsed = parseHttpsUrl(target);
    const answer = await getOnce(parsed, maxBytes, timeoutMs, options.ca);
    if (answer.kind === 'body') return answer.text;
    target = new URL(answer.location, parsed).toString();
  }
  throw new FeedFetchError('Too many redirects.');
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

/** One GET: the body, or the next location of a redirect. */
function getOnce(
  url: URL,
  maxBytes: number,
  timeoutMs: number,
  ca: FetchFeedOptions['ca'],
): Promise<{ kind: 'body'; text: string } | { kind: 'redirect'; location: string }> {
  return new Promise((resolve, reject) => {
    const fail = (message: string) => reject(new FeedFetchError(message));
    const req = https.get(
      url,
      {
        headers: { 'user-agent': 'Cordon category feed fetcher', accept: 'text/plain, */*' },
        ...(ca ? { ca: typeof ca === 'string' ? ca : [...ca] } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          resolve({ kind: 'redirect', location: res.headers.location });
          return;
        }
        if (status !== 200) {
          res.resume();
          fail(`The server answered HTTP ${status}.`);
          return;
        }
        const declared = Number(res.headers['content-length'] ?? 0);
        if (declared > maxBytes) {
          res.destroy();
          fail(`The feed is larger than ${Math.round(maxBytes / 1048576)} MiB.`);
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            res.destroy();
            fail(`The feed is larger than ${Math.round(maxBytes / 1048576)} MiB.`);
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ kind: 'body', text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (err) => fail(`The download failed: ${err.message}`));
      },
    );
    req.setTimeout(timeoutMs, () => {
      req.destroy();
      fail(`No complete answer within ${Math.round(timeoutMs / 1000)} s.`);
    });
    req.on('error', (err) => fail(`The download failed: ${err.message}`));
  });
}
