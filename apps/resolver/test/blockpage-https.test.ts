import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import { type ChangeFeed, createChangeFeed, type DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { readRootCertificatePem } from '@cordon/pki';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBlockPage, startBlockPage } from '../src/blockpage/http.ts';
import { seedTenants } from './helpers/seed.ts';

const CA_SECRET = 'test-ca-secret-of-at-least-32-characters';

/**
 * One HTTPS request over `tls.connect`, trusting only `ca`, with `servername` as SNI and Host.
 * @returns the verified peer certificate and the raw HTTP answer
 */
function fetchOverTls(
  port: number,
  servername: string | undefined,
  ca: string,
): Promise<{ peer: tls.PeerCertificate; response: string }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca, ...(servername ? { servername } : {}) }, () => {
      const peer = socket.getPeerCertificate();
      socket.write(`GET / HTTP/1.1\r\nHost: ${servername ?? 'localhost'}\r\nConnection: close\r\n\r\n`);
      let response = '';
      socket.setEncoding('utf8');
      socket.on('data', (c: string) => {
        response += c;
      });
      socket.on('end', () => resolve({ peer, response }));
    });
    socket.on('error', reject);
  });
}

describe.each(testDialects())('HTTPS block page on %s (docs/architecture.md "Block page")', (dialect) => {
  let handle: DatabaseHandle;
  let changes: ChangeFeed;
  let page: RunningBlockPage;
  let root: string;

  beforeAll(async () => {
    handle = await createTestDatabase(dialect);
    await seedTenants(handle);
    changes = createChangeFeed(handle);
    page = await startBlockPage({
      db: handle,
      changes,
      logger: pino({ level: 'silent' }),
      http: { host: '127.0.0.1', port: 0 },
      https: { host: '127.0.0.1', port: 0, caSecret: CA_SECRET },
    });
    root = (await readRootCertificatePem(handle)) as string;
  });

  afterAll(async () => {
    await page?.close();
    await changes?.close();
    await handle?.close();
  });

  it('creates the root CA at start and verifies a leaf minted for the blocked host', async () => {
    expect(root).toContain('BEGIN CERTIFICATE');
    const port = page.httpsAddress?.port as number;
    const { peer, response } = await fetchOverTls(port, 'www.gambling.example', root);
    expect(peer.subject.CN).toBe('www.gambling.example');
    expect(peer.subjectaltname).toBe('DNS:www.gambling.example');
    expect(response).toMatch(/^HTTP\/1\.1 200/);
    expect(response).toContain('This site is blocked');
    expect(response).toContain('www.gambling.example');
    expect(response).toContain('Gambling');
  });

  it('mints one leaf per host, each signed by the root', async () => {
    const port = page.httpsAddress?.port as number;
    const other = await fetchOverTls(port, 'mixed.example', root);
    expect(other.peer.subject.CN).toBe('mixed.example');
    const leaf = new X509Certificate(other.peer.raw);
    expect(leaf.verify(new X509Certificate(root).publicKey)).toBe(true);
    expect(leaf.ca).toBe(false);
  });

  it('is refused by a client that trusts only the public roots', async () => {
    const port = page.httpsAddress?.port as number;
    await expect(
      new Promise((resolve, reject) => {
        const socket = tls.connect({ host: '127.0.0.1', port, servername: 'www.gambling.example' }, () =>
          resolve(socket.authorized),
        );
        socket.on('error', reject);
      }),
    ).rejects.toThrow(/self.signed|unable to (get|verify)/i);
  });

  it('serves localhost and its address to a client without SNI', async () => {
    const port = page.httpsAddress?.port as number;
    const { peer } = await fetchOverTls(port, undefined, root);
    expect(peer.subjectaltname).toContain('DNS:localhost');
    expect(peer.subjectaltname).toContain('IP Address:127.0.0.1');
  });

  it('reuses the same root when the block page starts again', async () => {
    const again = await startBlockPage({
      db: handle,
      changes,
      logger: pino({ level: 'silent' }),
      http: { host: '127.0.0.1', port: 0 },
      https: { host: '127.0.0.1', port: 0, caSecret: CA_SECRET },
    });
    try {
      expect(await readRootCertificatePem(handle)).toBe(root);
      const { peer } = await fetchOverTls(again.httpsAddress?.port as number, 'gambling.example', root);
      expect(peer.subject.CN).toBe('gambling.example');
    } finally {
      await again.close();
    }
  });
});
