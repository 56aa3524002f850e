/**
 * `npm run openapi`: regenerates `docs/openapi.json` from the zod contract (docs/api.md). The test
 * `apps/api/test/openapi.test.ts` fails while the committed file differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OPENAPI_PATH, renderOpenApi } from '../src/openapi.ts';

const target = fileURLToPath(new URL(`../../../${OPENAPI_PATH}`, import.meta.url));
writeFileSync(target, await renderOpenApi());
process.stdout.write(`wrote ${OPENAPI_PATH}\n`);
