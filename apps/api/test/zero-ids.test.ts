import { describe, expect, it } from 'vitest';
import { call, createTestApp } from './helpers.ts';

// docs/api.md: the console cancels requests carrying user id 0 (spec-notes §5); the server still refuses
// them, as a missing resource.
describe('requests carrying user id 0', () => {
  it.each([
    ['GET', '/restapi/users/0'],
    ['GET', '/restapi/users/0/locations/all'],
    ['GET', '/restapi/users/0/stats/today'],
    ['POST', '/restapi/users/0'],
  ])('%s %s answers 404', async (method, url) => {
    const t = await createTestApp('sqlite');
    try {
      const res = await call(t.app, t.rootToken, method as 'GET' | 'POST', url, method === 'POST' ? {} : undefined);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Client error: Resource not found.', code: 'ERR_NOT_FOUND' });
    } finally {
      await t.close();
    }
  });
});
