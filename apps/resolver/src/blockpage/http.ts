import http from 'node:http';
import https from 'node:https';
import { type AddressInfo, isIP } from 'node:net';
import type { ChangeFeed, DatabaseHandle } from '@cordon/db';
import { type Decision, evaluate } from '@cordon/policy';
import { canonicalIp, categoryById, ErrorTexts, normalizeDomain, SECURITY_CATEGORY_IDS } from '@cordon/shared';
import type { Logger } from 'pino';
import { type BlockPageTexts, brandingFor } from '../snapshot/branding.ts';
import { SnapshotStore } from '../snapshot/store.ts';
import { KeyAttemptLimiter, redeemCloudKey } from './cloud-key.ts';

/** Block-page server settings (the CLI's `blockpage` role). */
export interface BlockPageOptions {
  db: DatabaseHandle;
  changes: ChangeFeed;
  logger: Logger;
  /** Listen address; port 0 picks a free port. */
  http: { host: string; port: number };
  /**
   * The HTTPS listener (docs/architecture.md "Block page"): the same page over TLS with a leaf certificate minted per SNI
   * host from the deployment's root CA, which is created on first use. `caSecret` is the CA secret's
   * text (`@cordon/pki` `loadCaSecret`), plain data so it can cross to the data-plane thread.
   */
  https?: { host: string; port: number; caSecret: string };
  /**
   * The resolver's snapshot when both run in one process, so the category index is held once.
   * Without it the block page loads and follows its own.
   */
  snapshot?: SnapshotStore;
}

/** A running block-page server. */
export interface RunningBlockPage {
  readonly address: AddressInfo;
  /** The HTTPS listener's address; null when not asked for. */
  readonly httpsAddress: AddressInfo | null;
  close(): Promise<void>;
}

/** What the page says. `decision` null: the client is unknown, or the host is not blocked for it. */
export interface BlockPageView {
  readonly host: string;
  readonly known: boolean;
  readonly decision: Decision | null;
  /**
   * The cloud-key form's state (docs/architecture.md "Block page"): `form` shows it, `refused` adds the refusal,
   * `bypassed` replaces it by the confirmation with the bypass's end (epoch ms); absent: no form
   * (unknown client, or a name in a security category, which no key unblocks).
   */
  readonly cloudKey?: { readonly state: 'form' | 'refused' } | { readonly state: 'bypassed'; readonly until: number };
  /**
   * The branding to show (spec-notes §7 `/ui/blockpage`), resolved field by field: the customer's, else its
   * MSP's, else the system's; an empty or absent field uses the built-in text (or shows nothing).
   */
  readonly branding?: BlockPageTexts;
}

/** True when `decision` names a security category (1, 5, 6, 53): no cloud key unblocks it (docs/architecture.md "Block page"). */
function securityBlocked(decision: Decision | null): boolean {
  return decision?.categories.some((id) => SECURITY_CATEGORY_IDS.includes(id)) === true;
}

/** The cloud-key part of the page: a plain form POST (no script), a refusal or the confirmation. */
function renderCloudKey(view: BlockPageView): string {
  const ck = view.cloudKey;
  if (ck === undefined) return '';
  if (ck.state === 'bypassed') {
    const until = escapeHtml(new Date(ck.until).toISOString().replace('T', ' ').slice(0, 16));
    const link = view.host
      ? ` <a href="http://${escapeHtml(view.host)}/">Continue to ${escapeHtml(view.host)}</a>`
      : '';
    return `<p role="status"><strong>Access granted</strong> from this device until ${until} UTC. It can take up to a minute before the site opens.${link}</p>`;
  }
  const refused =
    ck.state === 'refused'
      ? '<p role="alert" id="key-error" style="color:#DE3617">This cloud key is not valid, not active or has no uses left.</p>'
      : '';
  const described = ck.state === 'refused' ? ' aria-describedby="key-error" aria-invalid="true"' : '';
  return `<form method="post" action="" style="margin-top:2rem">${refused}<label for="cloud-key">Cloud key</label><br>
<input id="cloud-key" name="key" type="password" autocomplete="off" required minlength="5" maxlength="200"${described} style="width:100%;max-width:20rem;padding:.4rem;font-size:1rem">
<button type="submit" style="padding:.4rem 1rem;font-size:1rem">Unblock</button>
<p style="font-size:.9rem;color:#555">Have a cloud key from your administrator? Enter it to view blocked sites from this device for a while.</p></form>`;
}

/**
 * The host a browser asked for, from the `Host` header without port, brackets or trailing dot, in
 * the resolver's form (`normalizeDomain`: lower case, IDNA A-labels).
 */
export function hostFromHeader(header: string | undefined): string {
  if (!header) return '';
  let host = header.trim();
  if (host.startsWith('[')) host = host.slice(1, host.indexOf(']') > 0 ? host.indexOf(']') : undefined);
  else if (host.includes(':')) host = host.slice(0, host.indexOf(':'));
  return normalizeDomain(host);
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Why the host is blocked, in words (category names from the shared taxonomy). */
export function reasonText(decision: Decision | null): string {
  if (decision?.action !== 'blocked') return 'This site is blocked by your organisation’s policy.';
  if (decision.reason === 'unclassified') return 'Uncategorised sites are blocked by your organisation’s policy.';
  if (decision.reason !== 'category') return 'This site is on your organisation’s block list.';
  const names = decision.categories.map((id) => categoryById(id)?.name ?? `Category ${id}`);
  return `Category: ${names.join(', ')}`;
}

/** The built-in heading and `<title>` when no branding sets one. */
export const DEFAULT_BLOCKPAGE_TITLE = 'This site is blocked';

/**
 * The support contact as a link: `mailto:` for an e-mail address, the URL itself for an http(s) URL
 * (the only forms the API accepts); anything else (a row written by other means) as plain text.
 */
function renderSupport(contact: string): string {
  if (contact === '') return '';
  const text = escapeHtml(contact);
  const href = /^https?:\/\//i.test(contact)
    ? contact
    : /^[^\s@<>"']+@[^\s@<>"']+$/.test(contact)
      ? `mailto:${contact}`
      : null;
  const link = href === null ? text : `<a href="${escapeHtml(href)}">${text}</a>`;
  return `<p>Need help? Contact ${link}</p>`;
}

/**
 * Renders the block page (docs/architecture.md "Data plane"): static HTML, every dynamic value
 * escaped (the host, the reason and each branding text), no script. The branding's title replaces the
 * heading and the document title, its message (line breaks kept) follows the reason, then the support
 * contact and the footer; the logo, when a level has one, sits above the heading.
 */
export function renderBlockPage(view: BlockPageView): string {
  const host = view.host ? escapeHtml(view.host) : 'this site';
  const reason = escapeHtml(view.known ? reasonText(view.decision) : 'Access to this site is restricted.');
  const brand = view.branding;
  const title = escapeHtml(brand?.title || DEFAULT_BLOCKPAGE_TITLE);
  const message = brand?.message ? `<p>${escapeHtml(brand.message).replace(/\n/g, '<br>')}</p>` : '';
  const support = renderSupport(brand?.support_contact ?? '');
  const footer = brand?.footer ? `<footer><p>${escapeHtml(brand.footer)}</p></footer>` : '';
  // The hash is hex by construction; escaped all the same, like every value on the page.
  const logo = brand?.logo_sha256
    ? `<img class="logo" src="${LOGO_PATH}${escapeHtml(brand.logo_sha256)}" alt="" height="64">`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}h1{color:#DE3617}code{word-break:break-all}footer{margin-top:3rem;font-size:.9rem;color:#555}.logo{display:block;max-width:100%;height:auto;max-height:4rem;margin-bottom:1rem}</style>
</head><body>${logo}<h1>${title}</h1><p><code>${host}</code></p><p>${reason}</p>${message}${renderCloudKey(view)}${support}${footer}</body></html>
`;
}

/** Where the page's logo is served, followed by the logo's hex SHA-256 (docs/architecture.md "Block page"). */
export const LOGO_PATH = '/.cordon/logo/';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The logos served lately, by hash: a logo is the same bytes for good, so it is read once (at most 32 kept). */
class LogoCache {
  private readonly entries = new Map<string, { bytes: Buffer; type: string }>();
  constructor(private readonly db: DatabaseHandle['db']) {}

  /** The logo with hex SHA-256 `sha256`; undefined when no block page has it. */
  async get(sha256: string): Promise<{ bytes: Buffer; type: string } | undefined> {
    const hit = this.entries.get(sha256);
    if (hit) return hit;
    const row = await this.db
      .selectFrom('blockpages')
      .select(['logo', 'logo_type'])
      .where('logo_sha256', '=', sha256)
      .where('logo', 'is not', null)
      .executeTakeFirst();
    if (!row?.logo || !row.logo_type) return undefined;
    const logo = { bytes: Buffer.from(row.logo), type: row.logo_type };
    if (this.entries.size >= 32) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(sha256, logo);
    return logo;
  }
}

/** The largest form body the page reads, bytes (a key is at most 200 characters). */
const MAX_FORM_BYTES = 4096;

/**
 * Reads an `application/x-www-form-urlencoded` body (the cloud-key form) of at most
 * {@link MAX_FORM_BYTES}. @returns its fields, or null when the body is larger
 */
function readForm(req: http.IncomingMessage): Promise<URLSearchParams | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FORM_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? null : new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

/**
 * Starts the block-page HTTP server (docs/architecture.md "Data plane"). Every request, whatever its path or method,
 * gets the page (200; no 404s, a browser was sent here by a DNS answer), but for the logo path: the client address picks
 * the customer through the same prefix matcher as the resolver, the `Host` header names the
 * blocked host, and the decision is recomputed from the same snapshot to say why. An unknown
 * client gets the generic page. The snapshot follows `changes` like the resolver's.
 * @throws when the first snapshot load fails
 */
export async function startBlockPage(opts: BlockPageOptions): Promise<RunningBlockPage> {
  const ownStore = opts.snapshot === undefined;
  const store = opts.snapshot ?? new SnapshotStore(opts.db, opts.logger);
  if (ownStore) {
    await store.load();
    store.follow(opts.changes);
  }
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    void respond(req, res).catch((err: unknown) => {
      opts.logger.error({ err }, 'block page request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(ErrorTexts.serverError);
    });
  };
  const server = http.createServer(handler);
  // Refused keys per client address: guessing keys is slowed down like guessing passwords.
  const keyAttempts = new KeyAttemptLimiter();
  const logos = new LogoCache(opts.db.db);

  /**
   * `GET /.cordon/logo/<sha256>`: a block page's logo by its hash, cacheable for good (the hash changes
   * with the bytes); true when the request was for a logo path (answered, found or not).
   */
  async function serveLogo(req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (!path.startsWith(LOGO_PATH) || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    const sha256 = path.slice(LOGO_PATH.length);
    const logo = SHA256_HEX.test(sha256) ? await logos.get(sha256) : undefined;
    if (!logo) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end('Not found.');
      return true;
    }
    res.writeHead(200, {
      'content-type': logo.type,
      'content-length': logo.bytes.length,
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'",
    });
    res.end(req.method === 'HEAD' ? undefined : logo.bytes);
    return true;
  }

  /** One request: GET/HEAD show the page; POST with a `key` field redeems a cloud key first. */
  async function respond(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (await serveLogo(req, res)) return;
    const host = hostFromHeader(req.headers.host);
    const clientIp = canonicalIp(req.socket.remoteAddress ?? '');
    const identity = store.identify(clientIp);
    const now = Date.now();
    // The same engine and snapshot as the resolver's policy link, so the page never disagrees with dig
    // (without the client address: the page explains the block even while a bypass is being loaded).
    const decision = identity.kind === 'ok' && host ? evaluate(store, identity, { qname: host }, now) : null;
    const keyAllowed = identity.kind === 'ok' && !securityBlocked(decision);
    let cloudKey: BlockPageView['cloudKey'] = keyAllowed ? { state: 'form' } : undefined;
    if (req.method === 'POST') {
      const form = await readForm(req);
      if (form === null) {
        res.writeHead(413, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
        res.end('Request too large.');
        return;
      }
      if (identity.kind === 'ok' && keyAllowed) {
        const result = keyAttempts.allows(clientIp, now)
          ? await redeemCloudKey(opts.db, opts.changes, identity.customerId, clientIp, form.get('key') ?? '', now)
          : 'throttled';
        if (typeof result === 'string') {
          if (result !== 'throttled') keyAttempts.fail(clientIp, now);
          cloudKey = { state: 'refused' };
          opts.logger.info({ customerId: identity.customerId, clientIp, host, result }, 'cloud key refused');
        } else {
          keyAttempts.succeed(clientIp);
          cloudKey = { state: 'bypassed', until: result.expiresAt };
          opts.logger.info(
            { customerId: identity.customerId, keyId: result.keyId, clientIp, host, until: result.expiresAt },
            'cloud key used: bypass started',
          );
        }
      }
    }
    const branding =
      identity.kind === 'ok'
        ? brandingFor(store.branding, identity.customerId, identity.mspId)
        : brandingFor(store.branding, null, null);
    const view: BlockPageView =
      identity.kind === 'ok'
        ? { host, known: true, decision, branding, ...(cloudKey ? { cloudKey } : {}) }
        : { host, known: false, decision: null, branding };
    const body = renderBlockPage(view);
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'",
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
  let secure: https.Server | null = null;
  try {
    secure = opts.https ? await startHttps(opts.https, handler, opts.logger) : null;
    await listen(server, opts.http);
  } catch (err) {
    if (secure) await closeServer(secure);
    if (ownStore) store.close();
    throw err;
  }
  const address = server.address() as AddressInfo;
  const httpsAddress = secure ? (secure.address() as AddressInfo) : null;
  opts.logger.info(
    {
      address: `${address.address}:${address.port}`,
      ...(httpsAddress ? { https: `${httpsAddress.address}:${httpsAddress.port}` } : {}),
    },
    'block page listening',
  );
  const secureServer = secure;
  return {
    address,
    httpsAddress,
    close: async () => {
      if (ownStore) store.close();
      await Promise.all([closeServer(server), secureServer ? closeServer(secureServer) : undefined]);
    },
  };

  /**
   * The HTTPS listener: loads (or, on the deployment's first start, creates) the root CA, then
   * answers each TLS handshake with the leaf of its SNI host, minted on demand and cached
   * (`LeafMinter`); a client without SNI, or with a name that is not a host name, gets the leaf
   * of `localhost` and the listen address.
   */
  async function startHttps(
    listenOn: NonNullable<BlockPageOptions['https']>,
    onRequest: http.RequestListener,
    logger: Logger,
  ): Promise<https.Server> {
    // Loaded here: the X.509 code is evaluated only by a process that signs leaves.
    const { ensureRootCa, LeafMinter } = await import('@cordon/pki/signing');
    const ca = await ensureRootCa(opts.db, Buffer.from(listenOn.caSecret, 'utf8'));
    const ips = ['127.0.0.1', '::1', ...(isIP(listenOn.host) !== 0 ? [listenOn.host] : [])];
    const minter = new LeafMinter(ca, { fallback: { dnsNames: ['localhost'], ipAddresses: [...new Set(ips)] } });
    const fallback = await minter.fallbackCredentials();
    const secureServer = https.createServer(
      {
        ...fallback,
        minVersion: 'TLSv1.2',
        SNICallback: (servername, done) => {
          const context = minter.contextFor(servername);
          if (context === null) {
            done(null, undefined); // the default (fallback) certificate
            return;
          }
          context.then(
            (ctx) => done(null, ctx),
            (err: unknown) => {
              logger.error({ err, servername }, 'block page: minting a certificate failed');
              done(err as Error, undefined);
            },
          );
        },
      },
      onRequest,
    );
    // A failed handshake (a client that does not trust the root yet) is the client's business.
    secureServer.on('tlsClientError', () => undefined);
    await listen(secureServer, listenOn);
    return secureServer;
  }
}

/** Listens on `addr`; rejects with the socket error (e.g. `EADDRINUSE`). */
function listen(server: http.Server | https.Server, addr: { host: string; port: number }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(addr.port, addr.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Closes `server` and its open connections. */
async function closeServer(server: http.Server | https.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
}
