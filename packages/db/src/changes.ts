import { randomBytes } from 'node:crypto';
import type { DatabaseHandle } from './connection.ts';

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
 * Change notifications between the control plane and the resolver (docs/architecture.md "Decision order" "within one second").
 * `publish` records a new version of the topic in the `settings` table and tells local listeners
 * at once; a poller reads the versions every `pollMs` and tells local listeners of changes another
 * process made (a `cordon categories import`, another API instance). Works alike on SQLite and
 * PostgreSQL.
 */
export interface ChangeFeed {
  /** Records a change of `topic` and notifies subscribers. Call after the change has committed. */
  publish(topic: ChangeTopic): Promise<void>;
  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: ChangeListener): () => void;
  /** Starts polling for other processes' changes. */
  start(): Promise<void>;
  /** Stops polling. */
  close(): Promise<void>;
}

const KEY_PREFIX = 'version:';

/**
 * Creates the change feed on `handle`.
 * @param pollMs how often to look for other processes' changes, ms (default 500, so a change is seen within 1 s)
 */
export function createChangeFeed(handle: DatabaseHandle, pollMs = 500): ChangeFeed {
  const listeners = new Set<ChangeListener>();
  const seen = new Map<string, string>();
  let timer: NodeJS.Timeout | undefined;
  let polling = false;

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

  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      for (const row of await readVersions()) {
        if (seen.get(row.key) !== row.value) {
          seen.set(row.key, row.value);
          const topic = row.key.slice(KEY_PREFIX.length) as ChangeTopic;
          if ((CHANGE_TOPICS as readonly string[]).includes(topic)) notify(topic);
        }
      }
    } catch {
      // Database unreachable: keep the last snapshot and try again next tick (docs/architecture.md "Data plane").
    } finally {
      polling = false;
    }
  };

  return {
    async publish(topic) {
      const key = `${KEY_PREFIX}${topic}`;
      const value = `${Date.now()}-${randomBytes(4).toString('hex')}`;
      await handle.db
        .insertInto('settings')
        .values({ key, value })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
        .execute();
      seen.set(key, value);
      notify(topic);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async start() {
      for (const row of await readVersions()) seen.set(row.key, row.value);
      timer = setInterval(() => void poll(), pollMs);
      timer.unref();
    },
    async close() {
      if (timer) clearInterval(timer);
      listeners.clear();
    },
  };
}
