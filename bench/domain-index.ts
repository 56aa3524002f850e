/**
 * The allow/block list index in process (bench/README.md "Resolver memory"): heap of 100 policies ×
 * 1,000 entries (bench/resolver-memory.ts's names, half allow, half block, every entry with its
 * subdomains) and nanoseconds per lookup — misses on 3–4-label names (the common case: most names
 * are on no list), hits on a listed name, hits on a subdomain of a listed name.
 *
 *   node --expose-gc --import tsx bench/domain-index.ts [module]
 *
 * `module` (default packages/policy/src/domain-index.ts) is any file exporting `DomainIndex`
 * with `add(domain, value, includeSubdomains)`, `lookup(qname)` and, optionally, `seal()`: a copy
 * of an earlier version compares before and after. Figures go to bench/README.md, never into tests.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Index {
  add(domain: string, value: true, includeSubdomains: boolean): void;
  lookup(qname: string): true | undefined;
  seal?(): void;
}

const file = resolve(process.argv[2] ?? new URL('../packages/policy/src/domain-index.ts', import.meta.url).pathname);
const { DomainIndex } = (await import(pathToFileURL(file).href)) as { DomainIndex: new () => Index };
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const POLICIES = 100;
const ENTRIES = 1_000;
gc();
const before = process.memoryUsage();
const lists: { allow: Index; block: Index }[] = [];
for (let c = 0; c < POLICIES; c++) {
  const l = { allow: new DomainIndex(), block: new DomainIndex() };
  for (let i = 0; i < ENTRIES; i++)
    (i % 2 === 0 ? l.block : l.allow).add(`listed-${i}.customer-${c}.example`, true, true);
  l.allow.seal?.();
  l.block.seal?.();
  lists.push(l);
}
gc();
const after = process.memoryUsage();
const heap = after.heapUsed - before.heapUsed + (after.arrayBuffers - before.arrayBuffers);
console.log(
  `${file}: ${POLICIES * ENTRIES} entries: ${(heap / 1e6).toFixed(1)} MB (${(heap / (POLICIES * ENTRIES)).toFixed(0)} B/entry; heap ${((after.heapUsed - before.heapUsed) / 1e6).toFixed(1)} MB + array buffers ${((after.arrayBuffers - before.arrayBuffers) / 1e6).toFixed(1)} MB)`,
);

// Query names built up front, as the pipeline hands them over (fresh strings per query).
const N = 200_000;
const sets: Record<string, string[]> = { miss: [], hit: [], subdomain: [] };
for (let i = 0; i < N; i++) {
  sets.miss!.push(`www.s${i % 4000}.synthetic-${i % 997}.example`);
  sets.hit!.push(`listed-${(i * 7) % ENTRIES}.customer-${i % POLICIES}.example`);
  sets.subdomain!.push(`cdn.a.listed-${(i * 7) % ENTRIES}.customer-${i % POLICIES}.example`);
}
let sink = 0;
for (let round = 0; round < 5; round++) {
  const line: string[] = [];
  for (const [kind, names] of Object.entries(sets)) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) {
      // The engine asks the policy's block list and then its allow list (decision order step 3).
      const l = lists[i % POLICIES]!;
      if (l.block.lookup(names[i]!) !== undefined) sink++;
      if (l.allow.lookup(names[i]!) !== undefined) sink++;
    }
    const ns = Number(process.hrtime.bigint() - t0) / (2 * N);
    const c = process.cpuUsage(c0);
    // CPU time as well: on a shared machine the wall time counts the waits for a core.
    const cpuNs = ((c.user + c.system) * 1000) / (2 * N);
    line.push(`${kind} ${ns.toFixed(0)} ns (CPU ${cpuNs.toFixed(0)} ns)`);
  }
  console.log(`round ${round + 1}: ${line.join(', ')} per lookup (wall, CPU of the process)`);
}
if (sink === 0) console.log('no hits?');
