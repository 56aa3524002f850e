// The peer benchmark's Markdown table (bench/peers/run.sh, bench/README.md "Peer benchmark"), from the
// tab-separated rows run.sh appends while it measures:
//   <server> load <seconds>
//   <server> mem_ready <USS MB> <PSS MB> <RSS MB>    <server> mem_after <USS MB> <PSS MB> <RSS MB>
//     (USS: Private_Clean + Private_Dirty of /proc/PID/smaps_rollup, what the process costs alone)
//   <server> check ok|FAILED <text>    <server> failed <why>        upstream sat <run> <qps>
//   <server> <mix> sat <run> <qps> <lost> <sent>
//   <server> <mix> fixed|steady <run> <p50 ms> <p99 ms> <lost> <p99.9 ms> <CPU µs per answered query>
//     <answered> <load average>   (fixed: PEERS_SECONDS at the fixed load; steady: PEERS_STEADY_SECONDS)
//   <server> <mix> rcodes <dnsperf's "Response codes" of a saturating run>
//   cordon querylog <rows written> <rows dropped> <queries answered>
// Each cell is the median over the runs (the range in brackets when there are several).
//
//   node bench/peers/table.mjs <results.tsv> "<servers>" "<mixes>" <blocked-domain-count> [fixed-qps] [steady-seconds]
import { readFileSync } from 'node:fs';

const [file, serverList, mixList, blockedCount, fixedQps = '10000', steadySeconds = '60'] = process.argv.slice(2);
const qpsText = Number(fixedQps).toLocaleString('en-US');
const servers = serverList.split(/\s+/).filter(Boolean);
const mixes = mixList.split(/\s+/).filter(Boolean);
const rows = readFileSync(file, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => l.split('\t'));

const MIX_NAMES = {
  blocked: '(a) all blocked',
  distinct: '(b) distinct blocked names',
  cached: '(c) all allowed, cached',
  mixed: '(d) 10 % blocked / 90 % allowed',
};

const num = (v) => (v === undefined || v === '' || v === 'n/a' ? Number.NaN : Number(v));
const median = (xs) => {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (x, digits = 0) =>
  Number.isNaN(x) ? '—' : x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
/** Median, plus the range over the runs when there are several. */
const cell = (xs, digits = 0) => {
  const v = xs.map(num).filter((x) => !Number.isNaN(x));
  if (v.length === 0) return '—';
  const m = fmt(median(v), digits);
  return v.length > 1 ? `${m} (${fmt(Math.min(...v), digits)}–${fmt(Math.max(...v), digits)})` : m;
};
const get = (server, ...key) =>
  rows.filter((r) => r[0] === server && key.every((k, i) => r[i + 1] === k)).map((r) => r.slice(key.length + 1));
const one = (server, key) => get(server, key)[0]?.[0];
const failed = (server) => get(server, 'failed').length > 0;

const header = `| What | ${servers.join(' | ')} |`;
const sep = `|---|${servers.map(() => '---:').join('|')}|`;
const line = (what, f) => `| ${what} | ${servers.map((s) => (failed(s) ? 'did not start' : f(s))).join(' | ')} |`;

const out = [header, sep];
out.push(line('Load time, start → first blocked answer (s)', (s) => one(s, 'load') ?? '—'));
/** Column `i` (0 USS, 1 PSS, 2 RSS) of a server's memory reading `key`. */
const mem = (s, key, i) => get(s, key)[0]?.[i] ?? '—';
for (const [i, name] of ['USS', 'PSS', 'RSS'].entries()) {
  out.push(line(`${name} ready / after the runs (MB)`, (s) => `${mem(s, 'mem_ready', i)} / ${mem(s, 'mem_after', i)}`));
}
out.push(line('dig: blocked, its subdomain → 127.0.0.1; allowed → 192.0.2.10', (s) => one(s, 'check') ?? '—'));
for (const m of mixes) {
  const name = MIX_NAMES[m] ?? m;
  out.push(line(`**${name}**: QPS, saturating`, (s) => cell(get(s, m, 'sat').map((r) => r[1]))));
  out.push(
    line(`${name}: p50 / p99 at fixed load (ms)`, (s) => {
      const f = get(s, m, 'fixed');
      const p50 = cell(
        f.map((r) => r[1]),
        3,
      );
      const p99 = cell(
        f.map((r) => r[2]),
        3,
      );
      return `${p50} / ${p99}`;
    }),
  );
  out.push(
    line(`${name}: lost, saturating / fixed`, (s) => {
      const sat = get(s, m, 'sat').map((r) => num(r[2]));
      const fixed = get(s, m, 'fixed').map((r) => num(r[3]));
      return `${fmt(median(sat))} / ${fmt(median(fixed))}`;
    }),
  );
  out.push(
    line(`${name}: CPU per answered query at ${qpsText} QPS, fixed runs / steady run (µs)`, (s) => {
      const fixed = cell(
        get(s, m, 'fixed').map((r) => r[5]),
        2,
      );
      const steady = cell(
        get(s, m, 'steady').map((r) => r[5]),
        2,
      );
      return `${fixed} / ${steady}`;
    }),
  );
  out.push(
    line(`${name}: steady ${steadySeconds} s at ${qpsText} QPS: p50 / p99 / p99.9 (ms), lost`, (s) => {
      const r = get(s, m, 'steady')[0];
      if (!r) return '—';
      const ms = (v) => fmt(num(v), 3);
      return `${ms(r[1])} / ${ms(r[2])} / ${ms(r[4])}, ${fmt(num(r[3]))}`;
    }),
  );
}
console.log(out.join('\n'));
// Cordon against the best peer of each mix (median saturating QPS), the figure issue 12 sets out to lead.
if (servers.includes('cordon') && servers.length > 1) {
  const qps = (s, m) => median(get(s, m, 'sat').map((r) => num(r[1])));
  const parts = mixes.map((m) => {
    const peers = servers.filter((s) => s !== 'cordon' && !Number.isNaN(qps(s, m)));
    if (peers.length === 0 || Number.isNaN(qps('cordon', m))) return `${MIX_NAMES[m] ?? m}: —`;
    const best = peers.reduce((a, b) => (qps(b, m) > qps(a, m) ? b : a));
    return `${MIX_NAMES[m] ?? m} ${(qps('cordon', m) / qps(best, m)).toFixed(2)}× (${best})`;
  });
  console.log(`\nCordon ÷ best peer, saturating QPS: ${parts.join('; ')}.`);
}
// CPU per answered query at the fixed load (the steady run's, else the fixed runs' median): what an operator pays.
const cpuPerQuery = (s, m) => {
  const steady = num(get(s, m, 'steady')[0]?.[5]);
  return Number.isNaN(steady) ? median(get(s, m, 'fixed').map((r) => num(r[5]))) : steady;
};
if (servers.includes('cordon') && servers.length > 1) {
  const parts = mixes.map((m) => {
    const peers = servers.filter((s) => s !== 'cordon' && !Number.isNaN(cpuPerQuery(s, m)));
    if (peers.length === 0 || Number.isNaN(cpuPerQuery('cordon', m))) return `${MIX_NAMES[m] ?? m}: —`;
    const best = peers.reduce((a, b) => (cpuPerQuery(b, m) < cpuPerQuery(a, m) ? b : a));
    return (
      `${MIX_NAMES[m] ?? m} ${fmt(cpuPerQuery('cordon', m), 2)} µs ÷ ${fmt(cpuPerQuery(best, m), 2)} µs ` +
      `= ${(cpuPerQuery('cordon', m) / cpuPerQuery(best, m)).toFixed(2)}× (${best})`
    );
  });
  console.log(
    `\nCordon's CPU per answered query ÷ the best peer's at ${qpsText} QPS (the steady run's; whole process, ` +
      `every thread, until idle after the run): ${parts.join('; ')}.`,
  );
}
const loads = rows.filter((r) => r[2] === 'fixed' || r[2] === 'steady').map((r) => num(r[10]));
if (loads.some((x) => !Number.isNaN(x))) {
  const v = loads.filter((x) => !Number.isNaN(x));
  console.log(`\nLoad average (1 min) after the fixed-load runs: ${fmt(Math.min(...v), 2)}–${fmt(Math.max(...v), 2)}.`);
}
const up = get('upstream', 'sat').map((r) => r[1]);
console.log(
  `\nBlocked domains: ${Number(blockedCount).toLocaleString('en-US')} (Cordon's bench policy: every category). ` +
    `Upstream alone (dnsmasq, every name → A 192.0.2.10, saturating, mix (c)'s names): ${cell(up)} QPS.`,
);
const qlog = rows.find((r) => r[0] === 'cordon' && r[1] === 'querylog');
if (qlog) {
  const [written, dropped, queries] = qlog.slice(2).map((v) => Number(v || Number.NaN));
  const fmt = (n) => (Number.isNaN(n) ? '?' : n.toLocaleString('en-US'));
  console.log(
    `\nCordon's query log over all its runs: ${fmt(written)} rows written, ${fmt(dropped)} dropped, ` +
      `for ${fmt(queries)} queries answered.`,
  );
}
const odd = rows.filter((r) => r[2] === 'rcodes' && r[3] !== 'NOERROR' && !/^NOERROR [^,]*\(100\.00%\)$/.test(r[3]));
if (odd.length) {
  console.log('\nAnswers other than NOERROR (saturating runs):');
  for (const r of odd) console.log(`- ${r[0]}, ${MIX_NAMES[r[1]] ?? r[1]}: ${r[3]}`);
}
const bad = servers.filter((s) => !failed(s) && one(s, 'check') !== 'ok');
if (bad.length) {
  console.log(`\nChecks that failed:`);
  for (const s of bad) console.log(`- ${s}: ${get(s, 'check')[0]?.[1] ?? 'no check'}`);
}
