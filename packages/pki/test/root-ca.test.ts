import { X509Certificate as NodeX509 } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateToLatest, openDatabase } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  certificateAs,
  ensureRootCa,
  LeafMinter,
  loadCaSecret,
  readRootCertificatePem,
  rootCaPresent,
  seal,
  unseal,
} from '../src/index.ts';

const secret = Buffer.from('a'.repeat(43));
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'cordon-pki-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('CA secret and sealing (docs/decisions.md "Root CA")', () => {
  it('creates the secret file 0600 once, then reads the same secret; the variable wins', () => {
    const file = join(tempDir(), 'ca.key-secret');
    const first = loadCaSecret({ file });
    expect(first).toMatchObject({ source: 'file', created: true });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = loadCaSecret({ file });
    expect(again.created).toBe(false);
    expect(again.secret.equals(first.secret)).toBe(true);
    expect(loadCaSecret({ file, secret: 'x'.repeat(40) }).source).toBe('env');
    expect(() => loadCaSecret({ file, secret: 'short' })).toThrow(/at least 32/);
  });

  it('seals with AES-GCM: round-trips, differs per seal, refuses another secret', () => {
    const data = Buffer.from('private key bytes');
    const a = seal(data, secret);
    expect(a).not.toEqual(seal(data, secret));
    expect(unseal(a, secret).equals(data)).toBe(true);
    expect(() => unseal(a, Buffer.from('b'.repeat(43)))).toThrow(/not the one it was sealed with/);
  });
});

describe.each(testDialects())('root CA on %s', (dialect) => {
  it('rootCaPresent: false before the root exists, true after, and a wrong secret is refused', async () => {
    const handle = await createTestDatabase(dialect);
    try {
      expect(await rootCaPresent(handle, secret)).toBe(false);
      expect(await handle.db.selectFrom('root_ca').selectAll().execute()).toEqual([]);
      await ensureRootCa(handle, secret);
      expect(await rootCaPresent(handle, secret)).toBe(true);
      await expect(rootCaPresent(handle, Buffer.from('c'.repeat(43)))).rejects.toThrow(/CA secret/);
    } finally {
      await handle.close();
    }
  });

  it('is created once, its key stored sealed (never the plaintext PEM), and reused', async () => {
    const handle = await createTestDatabase(dialect);
    try {
      expect(await readRootCertificatePem(handle)).toBeNull();
      const [a, b] = await Promise.all([ensureRootCa(handle, secret), ensureRootCa(handle, secret)]);
      expect(b.certificatePem).toBe(a.certificatePem);
      const rows = await handle.db.selectFrom('root_ca').selectAll().execute();
      expect(rows).toHaveLength(1);
      const row = rows[0] as (typeof rows)[number];
      expect(row.key_sealed).not.toContain('PRIVATE KEY');
      expect(row.key_sealed).toMatch(/^v1\./);
      expect(row.certificate_pem).toContain('-----BEGIN CERTIFICATE-----');
      const cert = new NodeX509(row.certificate_pem);
      expect(cert.ca).toBe(true);
      expect(cert.subject).toMatch(/CN=Cordon Root CA [0-9a-f]{8}/);
      expect((await ensureRootCa(handle, secret)).certificatePem).toBe(a.certificatePem);
      await expect(ensureRootCa(handle, Buffer.from('c'.repeat(43)))).rejects.toThrow(/CA secret/);
      // Download formats: PEM text, DER bytes that parse to the same certificate.
      expect(certificateAs(row.certificate_pem, 'pem').toString('utf8')).toBe(row.certificate_pem);
      const der = certificateAs(row.certificate_pem, 'der');
      expect(der[0]).toBe(0x30); // an ASN.1 SEQUENCE
      expect(new NodeX509(der).fingerprint256).toBe(cert.fingerprint256);
      expect(certificateAs(row.certificate_pem, 'cer').equals(der)).toBe(true);
    } finally {
      await handle.close();
    }
  });
});

describe('root CA across restarts', () => {
  it('a second start on the same SQLite file reads the same CA', async () => {
    const path = join(tempDir(), 'cordon.sqlite');
    const first = openDatabase({ sqlitePath: path });
    await migrateToLatest(first);
    const pem = (await ensureRootCa(first, secret)).certificatePem;
    await first.close();
    const second = openDatabase({ sqlitePath: path });
    try {
      expect((await ensureRootCa(second, secret)).certificatePem).toBe(pem);
    } finally {
      await second.close();
    }
  });
});

describe('leaf minting', () => {
  it('mints per host, chains to the root, caches with a bound and refuses non-host names', async () => {
    const handle = await createTestDatabase('sqlite');
    try {
      const ca = await ensureRootCa(handle, secret);
      const minter = new LeafMinter(ca, { maxCached: 2 });
      const ctx = minter.contextFor('Blocked.Example.');
      expect(ctx).not.toBeNull();
      expect(minter.contextFor('blocked.example')).toBe(ctx); // cached, same name form
      await ctx;
      expect(minter.contextFor('bad name!')).toBeNull();
      expect(minter.contextFor('a'.repeat(64))).toBeNull();
      await minter.contextFor('two.example');
      await minter.contextFor('three.example');
      expect(minter.size).toBe(2);
    } finally {
      await handle.close();
    }
  });
});
