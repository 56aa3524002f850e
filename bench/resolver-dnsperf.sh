#!/usr/bin/env bash
# dnsperf against bench/resolver-serve.ts (bench/README.md). Usage: bench/resolver-dnsperf.sh [seconds]
# CORDON_BENCH_BUNDLE=1 runs the server as an esbuild bundle under plain node (no tsx in the process).
# CORDON_BENCH_PROF=1 adds `--cpu-prof` (profiles in the scratch directory's prof/; summarise with bench/cpuprofile-top.mjs).
# CORDON_BENCH_MIXES="blocked cached" picks the mixes; CORDON_BENCH_QPS=10000 fixes the offered load
# (dnsperf -Q; the default 200000 saturates) and adds latency percentiles from dnsperf -v (per-answer latencies).
# CORDON_BENCH_NODE_FLAGS adds node flags to the bundle's command line (e.g. --trace-gc, --max-semi-space-size=2).
# CORDON_BENCH_UDP_BACKEND=dgram|batch and CORDON_BENCH_THREADS=N reach bench/resolver-serve.ts; its last
# lines give the CPU time per answered query. Paths: CORDON_UT1_DIR, the UT1 lists (default
# $CORDON_SHARED_DIR/data/categories/ut1, CORDON_SHARED_DIR defaulting to the repository's sibling
# shared/, as in bench/peers/run.sh); CORDON_BENCH_DB, the UT1 SQLite file (default
# $TMPDIR/cordon-bench-ut1.db, kept between runs); CORDON_BENCH_DIR, the scratch directory (default
# a new one under $TMPDIR); CORDON_BENCH_PORT (5399); CORDON_BENCH_CLIENTS (dnsperf -c, 8);
# CORDON_BENCH_UPSTREAM_PORT, a loopback upstream of your own on 127.0.0.1 (default: the tests' fake
# upstream inside the server's process, whose CPU then counts in the server's).
# Three mixes: blocked names (UT1 gambling, each blocked by the policy), cached names (a few
# allowed names, cached after the first query) and upstream (1,000,000 distinct allowed names: at
# most that many queries, each a cache miss forwarded upstream). Numbers go in bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
port=${CORDON_BENCH_PORT:-5399}
ut1=${CORDON_UT1_DIR:-${CORDON_SHARED_DIR:-$(cd .. && pwd)/shared}/data/categories/ut1}
work=${CORDON_BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/cordon-dnsperf.XXXXXX")}
mkdir -p "$work"
db=${CORDON_BENCH_DB:-${TMPDIR:-/tmp}/cordon-bench-ut1.db}   # kept between runs: the UT1 import takes a while
CORDON_UT1_DIR=$ut1 node --expose-gc --import tsx bench/resolver-category-load.ts "$db" >/dev/null   # builds the UT1 db once
prof=()
if [ "${CORDON_BENCH_PROF:-0}" = 1 ]; then prof=(--cpu-prof --cpu-prof-dir="$work/prof"); fi
if [ "${CORDON_BENCH_BUNDLE:-0}" = 1 ]; then
  mkdir -p node_modules/.cordon-bench
  node_modules/.bin/esbuild bench/resolver-serve.ts --bundle --platform=node --format=esm --target=node20 \
    --outfile=node_modules/.cordon-bench/serve.mjs --external:better-sqlite3 --external:pg --external:pg-native \
    --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" --log-level=warning
  # The query-log writer thread's entry, next to the bundle under the name the resolver looks for.
  node_modules/.bin/esbuild apps/resolver/src/querylog/worker.ts --bundle --platform=node --format=esm --target=node20 \
    --outfile=node_modules/.cordon-bench/querylog-worker.mjs --external:better-sqlite3 --external:pg --external:pg-native \
    --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" --log-level=warning
  node --expose-gc ${CORDON_BENCH_NODE_FLAGS:-} "${prof[@]}" node_modules/.cordon-bench/serve.mjs "$db" "$port" ${CORDON_BENCH_UPSTREAM_PORT:-} > "$work/serve.log" 2>&1 &
else
  node --expose-gc "${prof[@]}" --import tsx bench/resolver-serve.ts "$db" "$port" ${CORDON_BENCH_UPSTREAM_PORT:-} > "$work/serve.log" 2>&1 &
fi
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 150); do grep -q ready "$work/serve.log" && break; sleep 0.2; done
grep ready "$work/serve.log"
head -n 20000 "$ut1/gambling/domains" | awk '{print $1" A"}' > "$work/q-blocked.txt"
for i in $(seq 1 20); do echo "allowed$i.bench.test A"; done > "$work/q-cached.txt"
seq 1 1000000 | awk '{print "n"$1".upstream.bench.test A"}' > "$work/q-upstream.txt"
qps=${CORDON_BENCH_QPS:-200000}
extra=()
if [ "$qps" != 200000 ]; then extra=(-v); fi
for mix in ${CORDON_BENCH_MIXES:-blocked cached}; do
  echo "== $mix (-Q $qps)"
  dnsperf -s 127.0.0.1 -p "$port" -d "$work/q-$mix.txt" -l "$secs" -c "${CORDON_BENCH_CLIENTS:-8}" -Q "$qps" "${extra[@]}" > "$work/dnsperf-$mix.txt" 2>&1 || true
  grep -E "Queries (sent|completed|lost)|Queries per second|Average Latency|Latency StdDev" "$work/dnsperf-$mix.txt"
  if [ "$qps" != 200000 ]; then node bench/dnsperf-percentiles.mjs "$work/dnsperf-$mix.txt"; fi
done
kill -TERM $pid; wait $pid || true
tail -n 3 "$work/serve.log"
