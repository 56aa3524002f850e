import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * This release's version (`cordon_build_info`, backup manifests), from the CLI package found through
 * node_modules, which holds in the bundle too.
 */
export const CORDON_VERSION = (
  JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@cordon/cli/package.json'), 'utf8')) as {
    version: string;
  }
).version;
