import { z } from 'zod';
import { ALL_ROLES } from '../roles.ts';
import { defineEndpoint } from './define.ts';

const tag = 'certificates';

/** The download formats of the root certificate: PEM text, or DER bytes named `.der` or `.cer`. */
export const CERTIFICATE_FORMATS = ['pem', 'der', 'cer'] as const;
export type CertificateDownloadFormat = (typeof CERTIFICATE_FORMATS)[number];

/** `?type=pem|der|cer` (default `pem`); anything else is refused with 400. */
export const certificateDownloadQuerySchema = z.object({ type: z.enum(CERTIFICATE_FORMATS).default('pem') });

/**
 * The file name of each format (docs/api.md "Certificates"): the same name the console saves under.
 */
export const CERTIFICATE_FILE_NAMES: Readonly<Record<CertificateDownloadFormat, string>> = {
  pem: 'cordon-root-ca.pem',
  der: 'cordon-root-ca.der',
  cer: 'cordon-root-ca.cer',
};

/**
 * `GET /certificates/machine/download?type=pem|der|cer` (spec-notes §7 "UI and tools"; docs/architecture.md "Block page"): the
 * deployment's root CA certificate, to install on the devices that should see the HTTPS block page
 * without a warning. The certificate is public and one per deployment, so every role may download it
 * (scope `any`). The answer is a file: PEM text (`application/x-pem-file`) or DER bytes
 * (`application/x-x509-ca-cert` for `der`, `application/pkix-cert` for `cer`, RFC 2585), with
 * `content-disposition: attachment`; the schema below describes the PEM text.
 */
export const certificateEndpoints = {
  download: defineEndpoint({
    method: 'GET',
    path: '/certificates/machine/download',
    query: certificateDownloadQuerySchema,
    response: z.string(),
    status: 200,
    access: { scope: 'any', roles: ALL_ROLES },
    tag,
    summary: "The deployment's root CA certificate as PEM, DER or CER (spec-notes §7 UI and tools).",
  }),
} as const;
