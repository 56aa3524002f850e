import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { up } from '../src/migrations/0003_login_throttle.ts';
import { createTestDatabase, testDialects } from '../src/testing.ts';

describe.each(testDialects())('migration 0003_login_throttle on %s', (dialect) => {
  it('creates login_throttle and deletes the signing key earlier versions kept in settings', async () => {
    const handle = await createTestDatabase(dialect);
    try {
      // The database as an earlier version left it: the key in settings, no throttle table.
      await sql`drop table login_throttle`.execute(handle.db);
      await handle.db
        .insertInto('settings')
        .values([
          { key: 'jwt_secret', value: randomBytes(32).toString('base64url') },
          { key: 'other', value: 'kept' },
        ])
        .execute();
      await up(handle.db as never, dialect);
      const settings = await handle.db.selectFrom('settings').select('key').execute();
      expect(settings.map((s) => s.key)).not.toContain('jwt_secret');
      expect(settings.map((s) => s.key)).toContain('other');
      await handle.db
        .insertInto('login_throttle')
        .values({ key: 'k', failures: 1, window_start: Date.now(), blocked_until: 0, last_success_at: null })
        .execute();
      expect(await handle.db.selectFrom('login_throttle').selectAll().execute()).toHaveLength(1);
    } finally {
      await handle.close();
    }
  });
});
