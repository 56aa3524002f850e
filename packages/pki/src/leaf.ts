import type { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import * as x509 from '@peculiar/x509';
import { CLOCK_SKEW_MS, crypto, EC_ALGORITHM, pkcs8ToPem, type RootCa } from './ca.ts';

/** How long a minted leaf is valid (well under the 398 days browsers accept). */
const LEAF_VALIDITY_MS = 30 * 24 * 3600 * 1000;
/** How long a minted leaf is served from the cache before it is minted again. */
const LEAF_CACHE_MS = 24 * 3600 * 1000;

/** A host name a leaf may be minted for: LDH labels (and `_`), 1–63 characters each, ≤ 253 in all. */
const HOST_NAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** Settings of {@link LeafMinter}. */
export interface LeafMinterOptions {
  /** Most leaves kept in memory; the least recently used is dropped beyond it (default 1000). */
  maxCached?: number;
  /** Names and addresses of the certificate served to clients that send no SNI. */
  fallback?: { dnsNames: string[]; ipAddresses: string[] };
  now?: () => number;
}

/**
 * Mints a TLS server certificate per SNI host on demand, signed by the deployment's root CA
 * (docs/architecture.md "Block page"), and keeps the secure contexts in a bounded LRU cache. All leaves of one process
 * share one ECDSA P-256 key made at start, so a new host costs one signature, not a key generation.
 * Each leaf: subject CN = the host, subjectAltName dNSName (or iPAddress) = the host (RFC 6125 §6.4),
 * basicConstraints CA false, keyUsage digitalSignature, extKeyUsage serverAuth, authority and
 * subject key identifiers, valid 30 days from a day ago.
 */
export class LeafMinter {
  private readonly cache = new Map<string, { context: Promise<SecureContext>; until: number }>();
  private readonly maxCached: number;
  private readonly now: () => number;
  private keys: Promise<{ pair: webcrypto.CryptoKeyPair; pem: string }>;

  constructor(
    private readonly ca: RootCa,
    private readonly opts: LeafMinterOptions = {},
  ) {
    this.maxCached = opts.maxCached ?? 1000;
    this.now = opts.now ?? Date.now;
    this.keys = (async () => {
      const pair = (await crypto.subtle.generateKey(EC_ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
      const der = Buffer.from(await crypto.subtle.exportKey('pkcs8', pair.privateKey));
      return { pair, pem: pkcs8ToPem(der) };
    })();
  }

  /** Leaves in the cache now. */
  get size(): number {
    return this.cache.size;
  }

  /**
   * The secure context for an SNI host name (lower-cased, trailing dot dropped).
   * @returns null for a name that is not a host name (nothing is minted for it)
   */
  contextFor(servername: string): Promise<SecureContext> | null {
    const host = servername.toLowerCase().replace(/\.$/, '');
    if (!HOST_NAME.test(host)) return null;
    return this.cached(`dns:${host}`, async () => createSecureContext(await this.credentials([host], [])));
  }

  /**
   * Key and certificate chain (PEM) for clients without SNI, the server's default: the `fallback`
   * names (default `localhost`, 127.0.0.1, ::1). Minted anew at each call; a server asks once.
   */
  fallbackCredentials(): Promise<{ key: string; cert: string }> {
    const f = this.opts.fallback ?? { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1', '::1'] };
    return this.credentials(f.dnsNames, f.ipAddresses);
  }

  private cached(key: string, make: () => Promise<SecureContext>): Promise<SecureContext> {
    const now = this.now();
    const hit = this.cache.get(key);
    this.cache.delete(key);
    if (hit && hit.until > now) {
      this.cache.set(key, hit); // most recently used goes last
      return hit.context;
    }
    const context = make();
    const entry = { context, until: now + LEAF_CACHE_MS };
    this.cache.set(key, entry);
    // A failed mint is not kept: the next handshake tries again.
    context.catch(() => {
      if (this.cache.get(key) === entry) this.cache.delete(key);
    });
    while (this.cache.size > this.maxCached) {
      const oldest = this.cache.keys().next().value as string;
      this.cache.delete(oldest);
    }
    return context;
  }

  private async credentials(dnsNames: string[], ipAddresses: string[]): Promise<{ key: string; cert: string }> {
    const { pair, pem } = await this.keys;
    const now = this.now();
    const names: x509.JsonGeneralName[] = [
      ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
      ...ipAddresses.filter((a) => isIP(a) !== 0).map((value) => ({ type: 'ip' as const, value })),
    ];
    const cn = (dnsNames[0] ?? ipAddresses[0] ?? 'Cordon block page').replace(/[,+="\\<>;#]/g, '');
    const cert = await x509.X509CertificateGenerator.create(
      {
        subject: `CN=${cn}`,
        issuer: this.ca.certificate.subject,
        notBefore: new Date(now - CLOCK_SKEW_MS),
        notAfter: new Date(now + LEAF_VALIDITY_MS),
        signingAlgorithm: EC_ALGORITHM,
        publicKey: pair.publicKey,
        signingKey: this.ca.signingKey,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension(names),
          await x509.AuthorityKeyIdentifierExtension.create(this.ca.certificate, false, crypto),
          await x509.SubjectKeyIdentifierExtension.create(pair.publicKey, false, crypto),
        ],
      },
      crypto,
    );
    return { key: pem, cert: `${cert.toString('pem')}\n${this.ca.certificatePem}` };
  }
}
