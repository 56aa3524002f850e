/**
 * Answer-cache hits over a large working set (issue 28, bench/README.md "Answer cache hits"): the
 * real `AnswerCache` holding `entries` answers, hit in a pseudo-random order with the cache's clock
 * advanced 0.05 ms a hit, so that each name comes back ≈ 4.5 s after its last hit — peer mix (d)'s
 * pattern (100,000 names at 10,000 QPS, each every ≈ 10 s). Prints the CPU time per hit (the minimum
 * of 5 rounds of `hits` hits, `process.cpuUsage()`) and the longest stretch of 1,024 hits by the
 * wall clock (a table rehash shows there). Numbers go in bench/README.md, never in tests.
 *
 *   node --import tsx bench/answer-cache-hits.ts [entries=90000] [hits=1000000]
 */
import dnsPacket from 'dns-packet';
import { AnswerCache } from '../apps/resolver/src/cache/answer-cache.ts';
import { compileAnswer } from '../apps/resolver/src/cache/compiled-answer.ts';

const entries = Number(process.argv[2] ?? 90_000);
const hits = Number(process.argv[3] ?? 1_000_000);

let now = 1_000_000_000;
const cache = new AnswerCache({ maxEntries: 100_000, now: () => now });
const keys: string[] = [];
for (let i = 0; i < entries; i++) {
  const name = `host${i}.example${i % 977}.com`;
  const wire = dnsPacket.encode({
    type: 'response',
    id: 1,
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
    questions: [{ type: 'A', name }],
    answers: [{ type: 'A', name, ttl: 3600, data: '192.0.2.10' }],
  });
  const key = AnswerCache.key(name, 1, 1, false);
  cache.set(key, compileAnswer(wire, name));
  keys.push(key);
}

let seed = 1;
let worstMs = 0;
let sink = 0;
const round = (): number => {
  const t0 = process.cpuUsage();
  let last = performance.now();
  for (let i = 0; i < hits; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    now += 0.05;
    const e = cache.get(keys[seed % entries]!, now);
    if (e !== undefined) sink++;
    if ((i & 1023) === 1023) {
      const t = performance.now();
      if (t - last > worstMs) worstMs = t - last;
      last = t;
    }
  }
  const t = process.cpuUsage(t0);
  return ((t.user + t.system) * 1000) / hits;
};

round(); // warm the JIT
worstMs = 0;
let best = Number.POSITIVE_INFINITY;
for (let r = 0; r < 5; r++) best = Math.min(best, round());
console.log(
  `${entries} entries, ${hits} hits a round: ${best.toFixed(0)} ns of CPU a hit (min of 5 rounds); longest 1,024 hits ${worstMs.toFixed(2)} ms; ${sink} hits`,
);
