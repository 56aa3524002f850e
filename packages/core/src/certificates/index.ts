/** The deployment's root CA certificate, for download (the CA itself lives in `@cordon/pki`). */
export { downloadRootCertificate } from './service.ts';
