import { certificateEndpoints } from '@cordon/shared';
import { useEndpointQuery } from '../../api/hooks.ts';

/**
 * `GET /certificates/machine/download?type=pem` (spec-notes §7 "UI and tools"): the deployment's root CA
 * certificate as PEM text. The DER and CER files are made from it in the browser
 * ({@link pemToDer}): the typed client reads answers as text, and DER is the PEM's base64 body.
 */
export function useRootCertificateQuery() {
  return useEndpointQuery(certificateEndpoints.download, { query: { type: 'pem' } }, { staleTime: Infinity });
}

/**
 * A certificate's DER bytes from its PEM (RFC 7468 §2: the base64 of the DER between the
 * `BEGIN`/`END CERTIFICATE` lines).
 * @throws Error when `pem` holds no certificate
 */
export function pemToDer(pem: string): Uint8Array {
  const m = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/.exec(pem);
  if (!m?.[1]) throw new Error('not a PEM certificate');
  const binary = atob(m[1].replace(/\s+/g, ''));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export { saveFile } from '../../components/saveFile.ts';
