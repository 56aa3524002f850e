// Latency percentiles from `dnsperf -v` output (one "> RCODE qname qtype seconds" line per answer;
// "> T …" lines are timeouts and are counted, not ranked). Used by bench/resolver-dnsperf.sh.
//   node bench/dnsperf-percentiles.mjs /tmp/cordon-dnsperf-cached.txt
import { readFileSync } from 'node:fs';

const lat = [];
let timeouts = 0;
for (const line of readFileSync(process.argv[2], 'utf8').split('\n')) {
  if (!line.startsWith('> ')) continue;
  const parts = line.trim().split(/\s+/);
  if (parts[1] === 'T') timeouts++;
  else lat.push(Number(parts.at(-1)) * 1000);
}
lat.sort((a, b) => a - b);
const at = (p) => (lat.length ? lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))].toFixed(3) : 'n/a');
console.log(
  `  Latency (ms) over ${lat.length} answers, ${timeouts} timeouts: p50 ${at(50)}  p90 ${at(90)}  p99 ${at(99)}  p99.9 ${at(99.9)}  max ${at(100)}`,
);
