/**
 * `@cordon/pki/signing`: the root CA and the leaves, for the dynamic imports of the processes that
 * sign (the block page's and DoH's TLS listeners, the first start creating the root). Importing it
 * by this path, not the package's index, keeps `@peculiar/x509` out of the chunks a resolver-only
 * process evaluates (bench/README.md "Resolver memory", round 7).
 */
export { ensureRootCa } from './ca.ts';
export { LeafMinter } from './leaf.ts';
