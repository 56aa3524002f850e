import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type pg from 'pg';
import { type DatabaseHandle, loadPg } from './connection.ts';
import { isDatabaseUnreachable } from './unreachable.ts';

/**
 * What changed. The resolver reloads the parts of its snapshot a topic names (docs/architecture.md "Data plane").
 * - `tenants`: MSPs and customers
 * - `policies`: policies and their categories
 * - `locations`: locations and their addresses
 * - `categories`: the category database (feed imports, level edits)
 * - `lists`: domain lists (policies' allow/block lists, MSP and system global lists)
 * - `staticroutes`: customers' static routes (conditional forwarding)
 * - `bypasses`: cloud keys and the bypasses they start (the block page writes bypasses too)
 * - `blockpages`: block-page branding (customer, MSP and system texts)
 * - `devices`: devices, their install keys and configuration, device exceptions and their rules
 * - `groups`: groups and internal users and their memberships
 */
export const CHANGE_TOPICS = [
  'tenants',
  'policies',
  'locations',
  'categories',
  'category_overrides',
  'lists',
  'staticroutes',
  'bypasses',
  'blockpages',
  'devices',
  'groups',
] as const;
export type ChangeTopic = (typeof CHANGE_TOPICS)[number];

export type ChangeListener = (topic: ChangeTopic) => void;

/**
 * Change notifications between the control plane and the resolver (docs/architecture.md "Change propagation").
 * `publish` records a new version of the topic in the `settings` table and tells local listeners
 * at once; a poller reads the versions every `pollMs` and tells local listeners of changes another
 * process made (a `cordon categories import`, another API instance). On PostgreSQL `publish` also
 * sends `NOTIFY cordon_changes` in the same statement and a started feed LISTENs on one dedicated
 * connection, reading the versions as soon as a notification arrives; the poll stays as the
 * safety net (a lost LISTEN connection, reconnected with backoff) and is all SQLite has.
 *
 * After an outage — a read of the versions failed for a lost connection (`isDatabaseUnreachable`),
 * or the LISTEN connection was lost — the first read that succeeds reports every topic as changed
 * (a full resync): notifications were missed, and a reload a listener tried meanwhile failed and
 * kept its last value, so the version rows alone cannot tell what is stale (docs/operations.md
 * "When the database goes away").
 */
export interface ChangeFeed {
  /** Records a change of `topic` and notifies subscribers. Call after the change has committed. */
  publish(topic: ChangeTopic): Promise<void>;
  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: ChangeListener): () => void;
  /**
   * Starts polling for other processes' changes (and LISTENing on PostgreSQL). Never rejects: with
   * the database unreachable it keeps trying, and the first read that succeeds reports every topic
   * as changed, so a process started during an outage catches up when the database returns.
   */
  start(): Promise<void>;
  /** Stops polling and listening. */
  close(): Promise<void>;
}

const KEY_PREFIX = 'version:';

/** The PostgreSQL notification channel of the change feed; the payload is the topic. */
export const CHANGE_CHANNEL = 'cordon_changes';

/** Backoff of the LISTEN connection's reconnects, ms: doubles from the first to the last. */
const LISTEN_RETRY_MS = [250, 30_000] as const;

/**
 * Creates the change feed on `handle`.
 * @param pollMs how often to look for other processes' changes, ms (default 500, so a change is seen
 *   within 1 s even without LISTEN)
 */
export function createChangeFeed(handle: DatabaseHandle, pollMs = 500): ChangeFeed {
  const listeners = new Set<ChangeListener>();
  const seen = new Map<string, string>();
  /**
   * Versions this feed is publishing: a read that sees one before its `publish` has returned (the
   * NOTIFY reaches the LISTEN connection as the write commits) records it without telling anyone, so
   * local listeners hear their own change once, from `publish`.
   */
  const publishing = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let polling = false;
  let pollAgain = false;
  /**
   * False until the versions were read once, and again after a failed read or a lost LISTEN
   * connection: the next successful read then reports every topic.
   */
  let primed = false;
  let closed = false;
  let listener: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;
  let retryMs: number = LISTEN_RETRY_MS[0];

  const notify = (topic: ChangeTopic) => {
    for (const l of listeners) {
      try {
        l(topic);
      } catch {
        // A listener's failure must not stop the others; listeners log their own errors.
      }
    }
  };

  const readVersions = async () => {
    const rows = await handle.db
      .selectFrom('settings')
      .select(['key', 'value'])
      .where('key', 'like', `${KEY_PREFIX}%`)
      .execute();
    return rows;
  };

  const poll = async (): Promise<void> => {
    // A wake-up during a read runs one more read after it: that read may have missed the change.
    if (polling) {
      pollAgain = true;
      return;
    }
    polling = true;
    try {
      do {
        pollAgain = false;
        const rows = await readVersions();
        if (!primed) {
          // Started while the database was unreachable, or back from an outage: anything may have changed meanwhile.
          primed = true;
          for (const row of rows) seen.set(row.key, row.value);
          for (const topic of CHANGE_TOPICS) notify(topic);
          continue;
        }
        for (const row of rows) {
          if (seen.get(row.key) !== row.value) {
            seen.set(row.key, row.value);
            const topic = row.key.slice(KEY_PREFIX.length) as ChangeTopic;
            if (publishing.has(row.value)) continue;
            if ((CHANGE_TOPICS as readonly string[]).includes(topic)) notify(topic);
          }
        }
      } while (pollAgain && !closed);
    } catch (err) {
      // Database unreachable: keep the last snapshot and try again next tick (docs/architecture.md
      // "Data plane"); after a lost connection the first read that succeeds resyncs everything.
      if (isDatabaseUnreachable(err)) primed = false;
    } finally {
      polling = false;
    }
  };

  /** Drops a LISTEN connection that failed or ended and schedules the next one. */
  const lost = (client: pg.Client) => {
    // A connection that listened and is gone: notifications were missed, resync once it is back.
    if (listener === client) {
      listener = null;
      if (!closed) primed = false;
    }
    client.removeAllListeners('notification');
    client.end().catch(() => undefined);
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void listen();
    }, retryMs);
    retry.unref();
    retryMs = Math.min(retryMs * 2, LISTEN_RETRY_MS[1]);
  };

  /** Opens the dedicated LISTEN connection (PostgreSQL only), with the pool's settings. */
  const listen = async (): Promise<void> => {
    const pool = handle.pgPool;
    if (!pool || closed) return;
    const client = new (loadPg().Client)({
      ...(pool.options as pg.ClientConfig),
      keepAlive: true,
      connectionTimeoutMillis: 5000,
    });
    let dropped = false;
    const drop = () => {
      if (dropped) return;
      dropped = true;
      lost(client);
    };
    client.on('error', drop);
    client.on('end', drop);
    client.on('notification', (m) => {
      if (m.channel === CHANGE_CHANNEL) void poll();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
      if (closed || dropped) {
        drop();
        return;
      }
      listener = client;
      retryMs = LISTEN_RETRY_MS[0];
      // Changes made while no connection was listening (every topic after a lost connection).
      void poll();
    } catch {
      drop();
    }
  };

  return {
    async publish(topic) {
      const key = `${KEY_PREFIX}${topic}`;
      const value = `${Date.now()}-${randomBytes(4).toString('hex')}`;
      publishing.add(value);
      try {
        if (handle.dialect === 'postgres') {
          // One statement: the notification is sent when (and only if) the new version commits.
          await sql`with v as (
              insert into settings (key, value) values (${key}, ${value})
              on conflict (key) do update set value = excluded.value
              returning key)
            select pg_notify(${CHANGE_CHANNEL}, ${topic}) from v`.execute(handle.db);
        } else {
          await handle.db
            .insertInto('settings')
            .values({ key, value })
            .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
            .execute();
        }
      } finally {
        publishing.delete(value);
      }
      seen.set(key, value);
      notify(topic);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async start() {
      try {
        for (const row of await readVersions()) seen.set(row.key, row.value);
        primed = true;
      } catch {
        // Unreachable for now: the poll keeps trying, and its first read reports every topic.
      }
      timer = setInterval(() => void poll(), pollMs);
      timer.unref();
      await listen();
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      if (retry) clearTimeout(retry);
      retry = undefined;
      const client = listener;
      listener = null;
      if (client) {
        client.removeAllListeners();
        client.on('error', () => undefined);
        await client.end().catch(() => undefined);
      }
      listeners.clear();
    },
  };
}
