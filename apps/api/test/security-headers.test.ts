import { createChangeFeed } from '@cordon/db';
import { createTestDatabase } from '@cordon/db/testing';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/index.ts';

describe('security headers (docs/security.md)', () => {
  it('sends a CSP without inline script and the usual hardening headers on API answers and errors', async () => {
    const db = await createTestDatabase('sqlite');
    const app = await buildApp({ db, changes: createChangeFeed(db), jwtSecret: new Uint8Array(32).fill(7) });
    try {
      for (const url of ['/restapi/docs/json', '/restapi/msp', '/restapi/no-such-route']) {
        const res = await app.inject({ url });
        const csp = String(res.headers['content-security-policy']);
        expect(csp, url).toContain("script-src 'self'");
        expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
        expect(csp).toContain("frame-ancestors 'none'");
        // Plain HTTP on loopback must keep working: no forced upgrade, no HSTS from here.
        expect(csp).not.toContain('upgrade-insecure-requests');
        expect(res.headers['strict-transport-security']).toBeUndefined();
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      }
    } finally {
      await app.close();
      await db.close();
    }
  });
});
