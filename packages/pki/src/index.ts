/**
 * `@cordon/pki`: the deployment's root CA and the leaf certificates of the HTTPS block page
 * (docs/architecture.md "Block page"; docs/decisions.md "Root CA"). A package of its own so that both the data plane
 * (`apps/resolver`, which may not import core) and core (the certificate download) use one code.
 */
export { ensureRootCa, generateRootCa, type RootCa } from './ca.ts';
export { type CertificateFormat, certificateAs, readRootCertificatePem } from './download.ts';
export { LeafMinter, type LeafMinterOptions } from './leaf.ts';
export { rootCaPresent } from './root-row.ts';
export { createSecretBox, SEALED_PREFIX, type SecretBox, seal, unseal } from './seal.ts';
export { loadCaSecret } from './secret.ts';
