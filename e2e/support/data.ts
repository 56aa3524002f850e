import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const SHARED = fileURLToPath(new URL('../../../shared/data/', import.meta.url));

/** True when the shared real data sits beside the repository (always in CI). */
export const HAS_SHARED_DATA = existsSync(`${SHARED}categories/ut1`);

/** The UT1 directory to import: the real one, else the project's small fixture. */
export const UT1_DIR = HAS_SHARED_DATA
  ? `${SHARED}categories/ut1`
  : fileURLToPath(new URL('../../packages/feeds/test/fixtures/ut1', import.meta.url));

/** Names of the UT1 gambling list, in file order. */
export function gamblingNames(): string[] {
  return readFileSync(`${UT1_DIR}/gambling/domains`, 'utf8').split('\n').filter(Boolean);
}

/** The top-domains workload, in rank order: the Tranco top 1M, else the project's fixture. */
export function workloadNames(limit = 5000): string[] {
  const text = HAS_SHARED_DATA
    ? gunzipSync(readFileSync(`${SHARED}workload/top-domains.txt.gz`)).toString('utf8')
    : readFileSync(fileURLToPath(new URL('../fixtures/top-domains.txt', import.meta.url)), 'utf8');
  return text.split('\n').filter(Boolean).slice(0, limit);
}

/** The suffixes a name matches in the category database: itself and every parent domain. */
export function suffixes(name: string): string[] {
  const labels = name.split('.');
  return labels.map((_, i) => labels.slice(i).join('.'));
}
