import { type CertificateFormat, certificateAs, readRootCertificatePem } from '@cordon/pki/download';
import { ApiError } from '@cordon/shared';
import type { Caller, CoreDeps } from '../context.ts';

/**
 * The deployment's root CA certificate in a download format (spec-notes §7 "UI and tools"; docs/architecture.md "Block page"):
 * `pem` as PEM text, `der` and `cer` as DER bytes. Public, one per deployment: any caller may have it.
 * `cordon serve` creates the CA on its first start (docs/decisions.md "Root CA").
 * @throws ApiError ERR_NOT_FOUND (404) before the first start has created it
 */
export async function downloadRootCertificate(
  deps: CoreDeps,
  _caller: Caller,
  format: CertificateFormat,
): Promise<Buffer> {
  const pem = await readRootCertificatePem(deps.handle);
  if (pem === null) throw new ApiError('ERR_NOT_FOUND');
  return certificateAs(pem, format);
}
