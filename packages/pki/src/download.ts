/**
 * `@cordon/pki/download`: the root certificate as the API hands it out, without the X.509 code (the
 * DER bytes come from node:crypto), so an API process loads `@peculiar/x509` only when it signs
 * (≈ 95 ms of CPU per start otherwise; docs/contributing.md "Running the tests").
 */
import { X509Certificate } from 'node:crypto';
import type { DatabaseHandle } from '@cordon/db';
import { readRootCaRow } from './root-row.ts';

/**
 * The root certificate alone (public; no secret needed), as PEM, or null before the first start
 * created it. For `GET /certificates/machine/download`.
 */
export async function readRootCertificatePem(handle: DatabaseHandle): Promise<string | null> {
  return (await readRootCaRow(handle))?.certificate_pem ?? null;
}

/** The certificate formats of the download (spec-notes §7 "UI and tools"). */
export type CertificateFormat = 'pem' | 'der' | 'cer';

/**
 * A certificate PEM in a download format: `pem` the text; `der` and `cer` the DER bytes (`.cer` is
 * the name Windows' certificate import expects; the bytes are the same).
 */
export function certificateAs(pem: string, format: CertificateFormat): Buffer {
  if (format === 'pem') return Buffer.from(pem, 'utf8');
  return new X509Certificate(pem).raw;
}
