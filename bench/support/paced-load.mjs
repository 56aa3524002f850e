/**
 * An open-loop HTTP load at an even rate, for `bench/api.ts` with `CORDON_BENCH_PACING=even`
 * (bench/README.md "API reads: the load's shape"). autocannon's `-R` lets each connection send its
 * share of a second's requests back to back as soon as the second starts, so its p99 is that of a
 * burst with every connection busy; here the same rate is spread over the second: `rate / 100`
 * requests every 10 ms, each timed from the moment it was due (not from when it went out), so a
 * server that falls behind is charged for the wait it causes (no coordinated omission).
 *
 *   node bench/support/paced-load.mjs <url> <seconds> <rate> <authorization header value>
 *
 * Prints one JSON object of the shape bench/api.ts reads from autocannon: `latency` {p50, p99, max}
 * in ms, `requests.total` answered, `errors` (connection errors), `timeouts` (none answered within
 * 10 s), `non2xx`.
 */
import http from 'node:http';

const [url, secondsArg, rateArg, authorization] = process.argv.slice(2);
const seconds = Number(secondsArg);
const rate = Number(rateArg);
if (!url || !(seconds > 0) || !(rate >= 100) || !authorization) {
  console.error('usage: paced-load.mjs <url> <seconds> <rate ≥ 100> <authorization>');
  process.exit(2);
}
const TICK_MS = 10;
const perTick = Math.round((rate * TICK_MS) / 1000);
const ticks = Math.round((seconds * 1000) / TICK_MS);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const latencies = [];
let errors = 0;
let timeouts = 0;
let non2xx = 0;
let pending = 0;

/** Sends one request due at `due` (performance.now() ms) and records its latency from then. */
function send(due) {
  pending++;
  const req = http.get(url, { agent, headers: { authorization }, timeout: 10_000 }, (res) => {
    res.resume();
    res.on('end', () => {
      if (res.statusCode < 200 || res.statusCode > 299) non2xx++;
      latencies.push(performance.now() - due);
      pending--;
    });
  });
  let timedOut = false;
  req.on('timeout', () => {
    timedOut = true;
    timeouts++;
    req.destroy(new Error('timeout'));
  });
  req.on('error', () => {
    if (!timedOut) errors++;
    pending--;
  });
}

const start = performance.now();
await new Promise((resolve) => {
  let tick = 0;
  const next = () => {
    // Every tick that is due by now (a late timer sends the ticks it missed at once, each timed from its due time).
    while (tick < ticks && start + tick * TICK_MS <= performance.now()) {
      const due = start + tick * TICK_MS;
      for (let i = 0; i < perTick; i++) send(due);
      tick++;
    }
    if (tick >= ticks) resolve();
    else setTimeout(next, Math.max(0, start + tick * TICK_MS - performance.now()));
  };
  next();
});
while (pending > 0) await new Promise((r) => setTimeout(r, 10));
agent.destroy();
latencies.sort((a, b) => a - b);
const at = (q) =>
  latencies.length === 0 ? 0 : Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]);
console.log(
  JSON.stringify({
    latency: { p50: at(0.5), p99: at(0.99), max: Math.round(latencies.at(-1) ?? 0) },
    requests: { total: latencies.length, average: latencies.length / seconds },
    errors,
    timeouts,
    non2xx,
  }),
);
