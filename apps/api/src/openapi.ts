import { createChangeFeed, migrateToLatest, openDatabase } from '@cordon/db';
import { buildApp } from './app.ts';

/** Where the committed OpenAPI document lives, relative to the repository root (docs/api.md). */
export const OPENAPI_PATH = 'docs/openapi.json';

/** `value` with every object's keys in code-point order (arrays keep theirs), so the text is stable. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}

/**
 * The API's OpenAPI document as committed in `docs/openapi.json`: generated from the zod contract by
 * building the app on a fresh in-memory SQLite database (docs/api.md; docs/contributing.md "Conventions" 10, 12), keys
 * sorted, 2-space JSON with a trailing newline. Depends only on the code, never on data or time.
 */
export async function renderOpenApi(): Promise<string> {
  const handle = openDatabase({ sqlitePath: ':memory:' });
  try {
    await migrateToLatest(handle);
    // No token is ever signed here: a fixed key keeps the build free of randomness.
    const app = await buildApp({ db: handle, changes: createChangeFeed(handle), jwtSecret: new Uint8Array(32) });
    try {
      await app.ready();
      return `${JSON.stringify(sortKeys(app.swagger()), null, 2)}\n`;
    } finally {
      await app.close();
    }
  } finally {
    await handle.close();
  }
}
