import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH, renderOpenApi } from '../src/openapi.ts';

// docs/api.md: the OpenAPI document is generated from the zod contract and committed; CI fails if stale.
describe('committed OpenAPI document', () => {
  it('matches what the contract generates', async () => {
    const committed = readFileSync(fileURLToPath(new URL(`../../../${OPENAPI_PATH}`, import.meta.url)), 'utf8');
    const generated = await renderOpenApi();
    if (generated !== committed) expect.fail('docs/openapi.json is stale: run npm run openapi');
  });

  it('is stable: two generations give the same text', async () => {
    expect(await renderOpenApi()).toBe(await renderOpenApi());
  });
});
