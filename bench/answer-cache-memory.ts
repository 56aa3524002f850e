/**
 * The answer cache's memory per entry (bench/README.md "Answer cache memory"): fills an
 * `AnswerCache` with `entries` compiled upstream answers (one A record each, names like the top-1M
 * workload's, the default 100,000-entry bound) and prints the heap, `external`/`arrayBuffers` and
 * RSS growth per entry, after full garbage collections — deterministic, unlike timings on a shared
 * machine. The cache keys are the only strings counted (the names are built before the baseline is
 * read, as the resolver's qnames are per query).
 *
 *   node --expose-gc --import tsx bench/answer-cache-memory.ts [entries=100000]
 */
import dnsPacket from 'dns-packet';
import { AnswerCache } from '../apps/resolver/src/cache/answer-cache.ts';
import { compileAnswer } from '../apps/resolver/src/cache/compiled-answer.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const entries = Number(process.argv[2] ?? 100_000);
if (!Number.isInteger(entries) || entries <= 0) throw new Error('entries: a positive integer');

const names = Array.from({ length: entries }, (_, i) => `host${i}.example${i % 977}.com`);
// Upstream responses encoded before the baseline: only what the cache keeps is measured.
const responses = names.map((name) =>
  dnsPacket.encode({
    type: 'response',
    id: 1,
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
    questions: [{ name, type: 'A' }],
    answers: [{ name, type: 'A', ttl: 3600, data: '192.0.2.10' }],
  }),
);
const cache = new AnswerCache({ maxEntries: entries });
const full = () => {
  gc();
  gc();
  return process.memoryUsage();
};
const before = full();
for (let i = 0; i < entries; i++) cache.set(names[i]!, compileAnswer(responses[i]!, names[i]!));
const after = full();
// Still referenced here, so the decoded responses stay out of the difference.
if (responses.length !== entries) throw new Error('responses lost');
const per = (k: keyof NodeJS.MemoryUsage) => ((after[k] - before[k]) / entries).toFixed(0);
console.log(
  `${cache.size} entries: heap +${per('heapUsed')} B/entry, external +${per('external')} (arrayBuffers +${per('arrayBuffers')}), RSS +${per('rss')} B/entry`,
);
