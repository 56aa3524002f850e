#!/usr/bin/env bash
# dnsperf against bench/resolver-serve.ts (DESIGN.md §13). Usage: bench/resolver-dnsperf.sh [seconds]
# CORDON_BENCH_BUNDLE=1 runs the server as an esbuild bundle under plain node (no tsx in the process).
# Two mixes: blocked names (UT1 gambling, each blocked by the policy) and cached names (a few
# allowed names, cached after the first query). Numbers go in bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
port=5399
node --expose-gc --import tsx bench/resolver-category-load.ts >/dev/null   # builds the UT1 db once
if [ "${CORDON_BENCH_BUNDLE:-0}" = 1 ]; then
  mkdir -p node_modules/.cordon-bench
  node_modules/.bin/esbuild bench/resolver-serve.ts --bundle --platform=node --format=esm --target=node20 \
    --outfile=node_modules/.cordon-bench/serve.mjs --external:better-sqlite3 --external:pg --external:pg-native \
    --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" --log-level=warning
  node --expose-gc node_modules/.cordon-bench/serve.mjs /tmp/cordon-bench-ut1.db $port > /tmp/cordon-bench-serve.log 2>&1 &
else
  node --expose-gc --import tsx bench/resolver-serve.ts /tmp/cordon-bench-ut1.db $port > /tmp/cordon-bench-serve.log 2>&1 &
fi
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do grep -q ready /tmp/cordon-bench-serve.log && break; sleep 0.2; done
grep ready /tmp/cordon-bench-serve.log
head -n 20000 /work/shared/data/categories/ut1/gambling/domains | awk '{print $1" A"}' > /tmp/cordon-q-blocked.txt
for i in $(seq 1 20); do echo "allowed$i.bench.test A"; done > /tmp/cordon-q-cached.txt
for mix in blocked cached; do
  echo "== $mix"
  dnsperf -s 127.0.0.1 -p $port -d /tmp/cordon-q-$mix.txt -l "$secs" -c 8 -Q 200000 2>&1 | grep -E "Queries (sent|completed|lost)|Queries per second|Average Latency|Latency StdDev"
done
kill -TERM $pid; wait $pid || true
tail -n 2 /tmp/cordon-bench-serve.log
