import { describe, expect, it } from 'vitest';
import { createChangeFeed } from '../src/changes.ts';
import { createTestDatabase, testDialects } from '../src/testing.ts';

describe.each(testDialects())('change feed on %s', (dialect) => {
  it('notifies local subscribers at once and other feeds on the same database by polling', async () => {
    const handle = await createTestDatabase(dialect);
    const api = createChangeFeed(handle, 20);
    const resolver = createChangeFeed(handle, 20);
    try {
      await api.start();
      await resolver.start();
      const local: string[] = [];
      const remote: string[] = [];
      api.subscribe((t) => local.push(t));
      resolver.subscribe((t) => remote.push(t));
      await api.publish('policies');
      expect(local).toEqual(['policies']);
      await expect.poll(() => remote, { timeout: 2000 }).toEqual(['policies']);
      // The publisher does not hear its own change twice through polling.
      await new Promise((r) => setTimeout(r, 100));
      expect(local).toEqual(['policies']);
    } finally {
      await api.close();
      await resolver.close();
      await handle.close();
    }
  });
});
