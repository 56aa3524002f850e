import { createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import type { DatabaseHandle } from '@cordon/db';
import { nowIso } from '@cordon/db';
import * as x509 from '@peculiar/x509';
import { readRootCaRow } from './root-row.ts';
import { seal, unseal } from './seal.ts';

/** WebCrypto, passed to `@peculiar/x509` explicitly (no global provider state). */
export const crypto = webcrypto;

/**
 * The key algorithm of the root and the leaves: ECDSA P-256 with SHA-256 (RFC 5480, RFC 5758),
 * accepted by every current browser and OS trust store, and fast enough to mint leaves on demand.
 */
export const EC_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** How long the root is valid: 10 years from its creation. */
const ROOT_VALIDITY_MS = 10 * 365 * 24 * 3600 * 1000;
/** Backdating of `notBefore`, for clients whose clock runs a little behind. */
export const CLOCK_SKEW_MS = 24 * 3600 * 1000;

/** The deployment's root CA as the data plane uses it: the certificate and its private signing key. */
export interface RootCa {
  readonly certificate: x509.X509Certificate;
  /** PEM of the certificate (`-----BEGIN CERTIFICATE-----`). */
  readonly certificatePem: string;
  /** The private key, for signing leaves only (not extractable). */
  readonly signingKey: webcrypto.CryptoKey;
}

/**
 * Creates a new self-signed root: subject `CN=Cordon Root CA <8 hex>, O=Cordon` (the suffix tells
 * deployments apart in a trust store), basicConstraints CA with path length 0 and keyUsage
 * keyCertSign + cRLSign, both critical (RFC 5280 §4.2.1.9, §4.2.1.3), a subject key identifier, and
 * a validity of 10 years.
 * @returns the certificate PEM and the private key as PKCS #8 DER
 */
export async function generateRootCa(now: number = Date.now()): Promise<{ certificatePem: string; keyPkcs8: Buffer }> {
  const keys = (await crypto.subtle.generateKey(EC_ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      name: `CN=Cordon Root CA ${randomBytes(4).toString('hex')}, O=Cordon`,
      notBefore: new Date(now - CLOCK_SKEW_MS),
      notAfter: new Date(now + ROOT_VALIDITY_MS),
      signingAlgorithm: EC_ALGORITHM,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  const keyPkcs8 = Buffer.from(await crypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { certificatePem: cert.toString('pem'), keyPkcs8 };
}

/**
 * The deployment's root CA, created on the first call (docs/architecture.md "Block page"): read from `root_ca`, else
 * generated, its key sealed with `secret` ({@link seal}) and inserted as row 1. Two processes
 * starting at once both insert; the second insert does nothing and both read the first one's row.
 * Not an audited tenant change: deployment key material, like the access-token key file.
 * @param secret the CA secret ({@link loadCaSecret}); never stored in the database
 * @throws Error when the stored key cannot be opened with `secret` (another deployment's secret)
 */
export async function ensureRootCa(handle: DatabaseHandle, secret: Buffer, now: number = Date.now()): Promise<RootCa> {
  let row = await readRootCaRow(handle);
  if (!row) {
    const fresh = await generateRootCa(now);
    await handle.db
      .insertInto('root_ca')
      .values({
        id: 1,
        certificate_pem: fresh.certificatePem,
        key_sealed: seal(fresh.keyPkcs8, secret),
        created_at: nowIso(now),
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    row = await readRootCaRow(handle);
    if (!row) throw new Error('root CA: the row just written cannot be read back');
  }
  const keyPkcs8 = unseal(row.key_sealed, secret);
  const signingKey = await crypto.subtle.importKey('pkcs8', keyPkcs8, EC_ALGORITHM, false, ['sign']);
  const certificate = new x509.X509Certificate(row.certificate_pem);
  return { certificate, certificatePem: certificate.toString('pem'), signingKey };
}

/** PKCS #8 DER private key → PEM, as `tls.createSecureContext` wants it. */
export function pkcs8ToPem(der: Buffer): string {
  return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({
    format: 'pem',
    type: 'pkcs8',
  }) as string;
}
