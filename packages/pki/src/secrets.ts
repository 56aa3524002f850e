/**
 * `@cordon/pki/secrets`: the CA secret, the sealing of stored secrets and the root CA's presence,
 * without the X.509 code: what every `cordon serve` needs at start. Importing it by this path, not
 * the package's index, keeps `@peculiar/x509` out of the chunks a resolver-only process evaluates
 * (bench/README.md "Resolver memory", round 7); `@cordon/pki/signing` has the rest.
 */
export { rootCaPresent } from './root-row.ts';
export { createSecretBox, SEALED_PREFIX, type SecretBox } from './seal.ts';
export { loadCaSecret } from './secret.ts';
export { JWT_KEY_MIN_BYTES, parseJwtKeys } from './token-keys.ts';
