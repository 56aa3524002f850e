import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createTestDatabase } from '@cordon/db/testing';
import { ensureRootCa, LeafMinter } from '@cordon/pki';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedFetchError, fetchFeed } from '../src/fetch.ts';

/** An HTTPS server on loopback with a certificate from a test root CA; routes by path. */
describe('fetchFeed over HTTPS on loopback', () => {
  let server: https.Server;
  let base: string;
  let ca: string;

  beforeAll(async () => {
    const handle = await createTestDatabase('sqlite');
    const root = await ensureRootCa(handle, Buffer.alloc(32, 7));
    await handle.close();
    ca = root.certificatePem;
    const credentials = await new LeafMinter(root).fallbackCredentials();
    server = https.createServer(credentials, (req, res) => {
      if (req.url === '/hosts.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('0.0.0.0 ads.example\n');
      } else if (req.url === '/moved') {
        res.writeHead(302, { location: '/hosts.txt' });
        res.end();
      } else if (req.url === '/insecure') {
        res.writeHead(302, { location: 'http://127.0.0.1/hosts.txt' });
        res.end();
      } else if (req.url === '/big') {
        res.writeHead(200);
        res.end(Buffer.alloc(4096, 97));
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  // The server is on loopback: the outbound guard lets it through only with this explicit allowance.
  const outbound = { allow: ['127.0.0.1/32'] };

  it('downloads a feed from a server whose certificate chains to the given CA, following a redirect', async () => {
    expect(await fetchFeed(`${base}/hosts.txt`, { ca, outbound })).toBe('0.0.0.0 ads.example\n');
    expect(await fetchFeed(`${base}/moved`, { ca, outbound })).toBe('0.0.0.0 ads.example\n');
  });

  it('refuses untrusted certificates, plain HTTP, error statuses and oversized bodies: one message, the cause in detail', async () => {
    const failure = async (p: Promise<unknown>) => {
      const e = await p.then(
        () => null,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(FeedFetchError);
      expect((e as FeedFetchError).message).toBe('The server could not be reached.');
      return (e as FeedFetchError).detail;
    };
    expect(await failure(fetchFeed(`${base}/hosts.txt`, { outbound }))).toMatch(/certificate/i);
    await expect(fetchFeed('http://127.0.0.1/hosts.txt', { ca, outbound })).rejects.toThrow(
      'Only https:// URLs are fetched.',
    );
    expect(await failure(fetchFeed(`${base}/insecure`, { ca, outbound }))).toMatch(/non-https/);
    expect(await failure(fetchFeed(`${base}/missing`, { ca, outbound }))).toMatch(/HTTP 404/);
    expect(await failure(fetchFeed(`${base}/big`, { ca, outbound, maxBytes: 1024 }))).toMatch(/exceeds 1024/);
    await expect(fetchFeed('not a url', { ca, outbound })).rejects.toThrow('Not a valid URL.');
  });
});
