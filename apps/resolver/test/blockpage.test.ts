import http from 'node:http';
import { type ChangeFeed, createChangeFeed, type DatabaseHandle } from '@cordon/db';
import { createTestDatabase } from '@cordon/db/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeHtml, hostFromHeader, type RunningBlockPage, startBlockPage } from '../src/blockpage/http.ts';
import { seedTenants } from './helpers/seed.ts';

function get(
  port: number,
  host: string,
  path = '/',
  localAddress = '127.0.0.1',
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, localAddress, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('block page over real HTTP', () => {
  let handle: DatabaseHandle;
  let changes: ChangeFeed;
  let page: RunningBlockPage;

  beforeAll(async () => {
    handle = await createTestDatabase('sqlite');
    await seedTenants(handle);
    changes = createChangeFeed(handle);
    page = await startBlockPage({
      db: handle,
      changes,
      logger: pino({ level: 'silent' }),
      http: { host: '127.0.0.1', port: 0 },
    });
  });

  afterAll(async () => {
    await page.close();
    await changes.close();
    await handle.close();
  });

  it('names the blocked host and its category for a known client, on any path', async () => {
    const res = await get(page.address.port, 'www.gambling.example', '/some/deep/path?x=1');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('This site is blocked');
    expect(res.body).toContain('www.gambling.example');
    expect(res.body).toContain('Gambling');
    expect(res.body).not.toContain('<script');
  });

  it('shows a generic page to an unknown client', async () => {
    const res = await get(page.address.port, 'gambling.example', '/', '127.0.0.2');
    expect(res.status).toBe(200);
    expect(res.body).toContain('This site is blocked');
    expect(res.body).not.toContain('Gambling');
  });

  it('escapes the Host header', async () => {
    const res = await get(page.address.port, 'x<b>"y');
    expect(res.body).not.toContain('<b>');
    expect(res.body).toContain('x&#60;b&#62;&#34;y');
  });

  it('parses Host headers with ports and IPv6 literals', () => {
    expect(hostFromHeader('Example.COM:8080')).toBe('example.com');
    expect(hostFromHeader('[::1]:80')).toBe('::1');
    expect(hostFromHeader('example.com.')).toBe('example.com');
    expect(escapeHtml(`<a href="x">'&`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;');
  });
});
