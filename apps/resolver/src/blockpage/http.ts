import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChangeFeed, DatabaseHandle } from '@cordon/db';
import { canonicalIp, categoryById, normalizeDomain } from '@cordon/shared';
import type { Logger } from 'pino';
import { type Decision, evaluate } from '../policy/engine/index.ts';
import { SnapshotStore } from '../snapshot/store.ts';

/** Block-page server settings (the CLI's `blockpage` role). */
export interface BlockPageOptions {
  db: DatabaseHandle;
  changes: ChangeFeed;
  logger: Logger;
  /** Listen address; port 0 picks a free port. */
  http: { host: string; port: number };
  /**
   * The resolver's snapshot when both run in one process, so the category index is held once.
   * Without it the block page loads and follows its own.
   */
  snapshot?: SnapshotStore;
}

/** A running block-page server. */
export interface RunningBlockPage {
  readonly address: AddressInfo;
  close(): Promise<void>;
}

/** What the page says. `decision` null: the client is unknown, or the host is not blocked for it. */
export interface BlockPageView {
  readonly host: string;
  readonly known: boolean;
  readonly decision: Decision | null;
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

/**
 * Renders the block page (docs/architecture.md "Data plane"): static HTML, every dynamic value escaped, no script.
 * Branding (customer / MSP / global texts and logo) comes in a later issue.
 */
export function renderBlockPage(view: BlockPageView): string {
  const host = view.host ? escapeHtml(view.host) : 'this site';
  const reason = escapeHtml(view.known ? reasonText(view.decision) : 'Access to this site is restricted.');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>This site is blocked</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}h1{color:#DE3617}code{word-break:break-all}</style>
</head><body><h1>This site is blocked</h1><p><code>${host}</code></p><p>${reason}</p></body></html>
`;
}

/**
 * Starts the block-page HTTP server (docs/architecture.md "Data plane"). Every request, whatever its path or method,
 * gets the page (200; no 404s, a browser was sent here by a DNS answer): the client address picks
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
  const server = http.createServer((req, res) => {
    const host = hostFromHeader(req.headers.host);
    const identity = store.identify(canonicalIp(req.socket.remoteAddress ?? ''));
    // The same engine and snapshot as the resolver's policy link, so the page never disagrees with dig.
    const view: BlockPageView =
      identity.kind === 'ok'
        ? { host, known: true, decision: host ? evaluate(store, identity, { qname: host }, Date.now()) : null }
        : { host, known: false, decision: null };
    const body = renderBlockPage(view);
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.http.port, opts.http.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  opts.logger.info({ address: `${address.address}:${address.port}` }, 'block page listening');
  return {
    address,
    close: async () => {
      if (ownStore) store.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
