/**
 * The PostgreSQL advisory lock that orders query-log writers and the roll-up fold
 * (docs/architecture.md "Statistics"). `query_log.id` comes from a sequence, and concurrent writers'
 * transactions commit in any order, so "every id up to N is final" is not known from the ids alone.
 * Each writer holds this lock **shared** for its insert transaction
 * (`pg_advisory_xact_lock_shared`); the fold takes it **exclusively** for a moment
 * (`pg_advisory_xact_lock`) to read the sequence's last value: with it held no insert is in flight,
 * so every id up to that value is committed or rolled back, and ids taken later are higher.
 * SQLite needs none: one writer at a time, and a row id is assigned inside its write transaction.
 */
export const QUERY_LOG_WRITE_LOCK = {
  /** The first key: ASCII 'qlog'. */
  classId: 0x716c6f67,
  /** The second key. */
  objectId: 1,
} as const;
