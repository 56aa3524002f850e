// Summarises a V8 .cpuprofile (node --cpu-prof): self time per function, top N, as % of samples.
//   node bench/cpuprofile-top.mjs /tmp/cordon-prof/*.cpuprofile [N]
import { readFileSync } from 'node:fs';

const file = process.argv[2];
const top = Number(process.argv[3] ?? 30);
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const counts = new Map();
for (const id of prof.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
const self = new Map();
for (const [id, c] of counts) {
  const f = byId.get(id).callFrame;
  const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + c);
}
const total = prof.samples.length;
for (const [k, c] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${((100 * c) / total).toFixed(1).padStart(5)}%  ${k}`);
}
