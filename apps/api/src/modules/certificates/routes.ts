import { certificates } from '@cordon/core';
import { CERTIFICATE_FILE_NAMES, type CertificateDownloadFormat, Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/** Media type of each download format (RFC 7468 PEM; RFC 2585 `application/pkix-cert` for `.cer`). */
const CONTENT_TYPES: Readonly<Record<CertificateDownloadFormat, string>> = {
  pem: 'application/x-pem-file',
  der: 'application/x-x509-ca-cert',
  cer: 'application/pkix-cert',
};

/** `GET /certificates/machine/download?type=pem|der|cer` (spec-notes §7 "UI and tools"): the root CA certificate as a file. */
export function registerCertificateRoutes(app: FastifyInstance, deps: AppDeps): void {
  registerEndpoint(app, Endpoints.certificates.download, async ({ caller, query, reply }) => {
    const body = await certificates.downloadRootCertificate(deps, caller, query.type);
    reply
      .header('content-type', CONTENT_TYPES[query.type])
      .header('content-disposition', `attachment; filename="${CERTIFICATE_FILE_NAMES[query.type]}"`);
    // PEM is text (the schema's string); DER goes out as the raw bytes, which Fastify sends unserialised.
    return (query.type === 'pem' ? body.toString('utf8') : body) as unknown as string;
  });
}
