// Builds the peer benchmark's inputs (bench/peers/run.sh, bench/README.md "Peer benchmark") from
// the list of domains Cordon's bench policy blocks and the top-domains workload:
//
//   node bench/peers/prepare.mjs <blocked-domains.txt> <top-domains.txt.gz> <out-dir>
//
// Writes into <out-dir>:
//   blocked.txt            the blocked domains (one per line; names a zone file cannot hold are dropped)
//   dnsmasq-blocked.conf   `address=/<domain>/127.0.0.1` per domain (dnsmasq matches subdomains too)
//   unbound-blocked.conf   `local-zone: "<domain>." redirect` + `local-data: "<domain>. A 127.0.0.1"`
//   blocked.rpz            an RPZ zone (knot-resolver, pdns-recursor): `<domain> A 127.0.0.1` and
//                          `*.<domain> A 127.0.0.1` (RPZ needs the wildcard for subdomains)
//   q-blocked.txt          mix (a): every blocked domain once, shuffled, as dnsperf input (`name A`)
//   q-distinct.txt         mix (b): PEERS_DISTINCT_NAMES (3,000,000) distinct subdomains of blocked domains
//   q-cached.txt           mix (c): the PEERS_CACHED_NAMES (1,000) best-ranked allowed top domains
//   q-mixed.txt            mix (d): PEERS_MIXED_NAMES (100,000) lines, every 10th a blocked top domain
//                          (best-ranked first), the rest the best-ranked allowed top domains
//   probes.txt             `blocked <domain>`, `subdomain <name>`, `allowed <name>` for the dig checks
// "Blocked" is suffix matching, as Cordon's category lookup (the qname and each parent).
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const [blockedFile, topFile, out] = process.argv.slice(2);
if (!blockedFile || !topFile || !out) {
  console.error('usage: node bench/peers/prepare.mjs <blocked-domains.txt> <top-domains.txt.gz> <out-dir>');
  process.exit(2);
}
const DISTINCT = Number(process.env.PEERS_DISTINCT_NAMES ?? 3_000_000);
const CACHED = Number(process.env.PEERS_CACHED_NAMES ?? 1_000);
const MIXED = Number(process.env.PEERS_MIXED_NAMES ?? 100_000);
mkdirSync(out, { recursive: true });

// A name every peer's configuration syntax accepts (RFC 1035 §2.3.4 lengths; letters, digits, '-', '_').
const LABEL = /^[a-z0-9_-]{1,63}$/;
const valid = (name) => name.length <= 253 && name.includes('.') && name.split('.').every((l) => LABEL.test(l));

const lines = (text) =>
  text
    .split('\n')
    .map((l) => l.trim().toLowerCase())
    .filter(Boolean);
const blocked = [...new Set(lines(readFileSync(blockedFile, 'utf8')))].filter(valid).sort();
const blockedSet = new Set(blocked);
const isBlocked = (name) => {
  for (let n = name; ; ) {
    if (blockedSet.has(n)) return true;
    const dot = n.indexOf('.');
    if (dot < 0) return false;
    n = n.slice(dot + 1);
  }
};

// Deterministic shuffle (mulberry32), so every server and every run sees the same order.
let seed = 12;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const shuffled = (arr) => {
  const a = arr.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
};

/** Writes a large file line by line without building one string. */
async function writeLines(file, count, lineAt) {
  const ws = createWriteStream(join(out, file));
  let buf = '';
  for (let i = 0; i < count; i++) {
    buf += lineAt(i);
    if (buf.length > 1 << 20) {
      if (!ws.write(buf)) await new Promise((r) => ws.once('drain', r));
      buf = '';
    }
  }
  ws.write(buf);
  await new Promise((r) => ws.end(r));
}

writeFileSync(join(out, 'blocked.txt'), `${blocked.join('\n')}\n`);
await writeLines('dnsmasq-blocked.conf', blocked.length, (i) => `address=/${blocked[i]}/127.0.0.1\n`);
await writeLines(
  'unbound-blocked.conf',
  blocked.length,
  (i) => `local-zone: "${blocked[i]}." redirect\nlocal-data: "${blocked[i]}. 3600 IN A 127.0.0.1"\n`,
);
const RPZ_HEAD = '$TTL 3600\n@ SOA localhost. hostmaster.localhost. 1 3600 600 86400 60\n@ NS localhost.\n';
await writeLines('blocked.rpz', blocked.length + 1, (i) =>
  i === 0 ? RPZ_HEAD : `${blocked[i - 1]} A 127.0.0.1\n*.${blocked[i - 1]} A 127.0.0.1\n`,
);

const mixA = shuffled(blocked);
await writeLines('q-blocked.txt', mixA.length, (i) => `${mixA[i]} A\n`);
await writeLines('q-distinct.txt', DISTINCT, (i) => `n${i.toString(36)}.${mixA[i % mixA.length]} A\n`);

// Special-use names (RFC 6761, RFC 6303's arpa zones, RFC 7686's onion) are answered locally by some
// peers (unbound's default local zones answer `onion.` NXDOMAIN), so they are left out of the workload.
const SPECIAL = /(^|\.)(arpa|onion|localhost|local|test|invalid|example)$/;
const top = lines(gunzipSync(readFileSync(topFile)).toString('utf8')).filter((n) => valid(n) && !SPECIAL.test(n));
const topBlocked = [];
const topAllowed = [];
for (const name of top) (isBlocked(name) ? topBlocked : topAllowed).push(name);
if (topBlocked.length === 0 || topAllowed.length < CACHED) throw new Error('top-domains workload too small');
await writeLines('q-cached.txt', CACHED, (i) => `${topAllowed[i]} A\n`);
let b = 0;
let a = 0;
await writeLines('q-mixed.txt', MIXED, (i) =>
  i % 10 === 0 ? `${topBlocked[b++ % topBlocked.length]} A\n` : `${topAllowed[a++ % topAllowed.length]} A\n`,
);
const probe = mixA[0];
writeFileSync(join(out, 'probes.txt'), `blocked ${probe}\nsubdomain peers-probe.${probe}\nallowed ${topAllowed[0]}\n`);
console.log(
  `prepare: ${blocked.length} blocked domains; top domains ${top.length} (${topBlocked.length} blocked, ${topAllowed.length} allowed); ` +
    `mixes: blocked ${mixA.length}, distinct ${DISTINCT}, cached ${CACHED}, mixed ${MIXED} (${Math.ceil(MIXED / 10)} blocked)`,
);
