#!/usr/bin/env bash
# Peer benchmark (issue 12; how to run and what it measures: bench/README.md "Peer benchmark").
# Cordon beside unbound, dnsmasq, dnsdist, knot-resolver and pdns-recursor, each loaded with the same
# blocked domains (every UT1 domain Cordon's bench policy blocks, suffix match) and forwarding the rest
# to one loopback upstream; the server pinned to one core, dnsperf to another; one Markdown table.
#
#   bench/peers/run.sh
#
# Knobs (environment):
#   PEERS_SECONDS=10        seconds per dnsperf run
#   PEERS_RUNS=3            runs per mix and server (the table shows the median)
#   PEERS_SERVERS="cordon unbound dnsmasq dnsdist knot-resolver pdns-recursor"
#   PEERS_MIXES="blocked distinct cached mixed"   (a) (b) (c) (d) of bench/README.md
#   PEERS_FIXED_QPS=10000   offered load of the latency runs (dnsperf -Q … -v)
#   PEERS_STEADY_SECONDS=60 the steady run per mix: PEERS_FIXED_QPS held this long, every query logged
#                           (Cordon), p50/p99/p99.9 and CPU per answered query over it (0 skips it)
#   PEERS_SETTLE_MAX=60     a latency run starts once the server is idle after the saturating run
#                           before it (< 2 % of a core for 0.5 s), waiting at most this many seconds
#   PEERS_CLIENTS=8 PEERS_OUTSTANDING=100    dnsperf -c / -q of the saturating runs
#   PEERS_SERVER_CPU=0 PEERS_DNSPERF_CPU=1    taskset cores; PEERS_UPSTREAM_CPU (default: core 2 when
#                           the machine has ≥ 3, otherwise unpinned)
#   PEERS_PORT=55353 PEERS_UPSTREAM_PORT=55354   loopback ports
#   PEERS_DISTINCT_NAMES=3000000 PEERS_CACHED_NAMES=1000 PEERS_MIXED_NAMES=100000   mix sizes
#   PEERS_RESULTS=<file>    where the table goes (default bench/peers/results/<UTC time>.md)
#   PEERS_KEEP=1            keep the work directory (configurations, logs, dnsperf outputs)
#   CORDON_SHARED_DIR=../shared   the data (categories/ut1, workload/top-domains.txt.gz)
#   PEERS_NO_INSTALL=1      never run apt-get (fail if a tool is missing)
#   PEERS_CORDON_NODE_OPTIONS  Cordon's node flags (default: the NODE_OPTIONS of
#                           deploy/systemd/cordon-resolver.service, as deployed; empty: node's defaults)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
shared=${CORDON_SHARED_DIR:-$repo/../shared}
secs=${PEERS_SECONDS:-10}
runs=${PEERS_RUNS:-3}
servers=${PEERS_SERVERS:-cordon unbound dnsmasq dnsdist knot-resolver pdns-recursor}
mixes=${PEERS_MIXES:-blocked distinct cached mixed}
fixed_qps=${PEERS_FIXED_QPS:-10000}
steady_secs=${PEERS_STEADY_SECONDS:-60}
settle_max=${PEERS_SETTLE_MAX:-60}
clients=${PEERS_CLIENTS:-8}
outstanding=${PEERS_OUTSTANDING:-100}
port=${PEERS_PORT:-55353}
upport=${PEERS_UPSTREAM_PORT:-55354}
server_cpu=${PEERS_SERVER_CPU:-0}
perf_cpu=${PEERS_DNSPERF_CPU:-1}
if [ -z "${PEERS_UPSTREAM_CPU+x}" ]; then
  if [ "$(nproc)" -ge 3 ]; then up_cpu=2; else up_cpu=; fi
else
  up_cpu=$PEERS_UPSTREAM_CPU
fi
# Cordon runs as its resolver unit runs it: the unit's node flags unless told otherwise.
unit=$repo/deploy/systemd/cordon-resolver.service
cordon_node_options=${PEERS_CORDON_NODE_OPTIONS-$(sed -n 's/^Environment=NODE_OPTIONS=//p' "$unit")}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
results=${PEERS_RESULTS:-$here/results/$stamp.md}
mkdir -p "$(dirname "$results")"
[ -d "$shared/data/categories/ut1" ] || { echo "no UT1 data under $shared/data (set CORDON_SHARED_DIR)" >&2; exit 1; }
for m in $mixes; do
  case $m in blocked | distinct | cached | mixed) ;; *) echo "unknown mix $m" >&2; exit 2 ;; esac
done
for s in $servers; do
  case $s in cordon | unbound | dnsmasq | dnsdist | knot-resolver | pdns-recursor) ;; *) echo "unknown server $s" >&2; exit 2 ;; esac
done

log() { echo "[$(date -u +%T)] $*" >&2; }

# ---------------------------------------------------------------------------------------------
# 1. Tools: Debian packages, installed when missing, their own services kept off port 53.
# ---------------------------------------------------------------------------------------------
install_tools() {
  local need=() bin pkg
  for pair in dnsperf:dnsperf dig:bind9-dnsutils taskset:util-linux unbound:unbound dnsmasq:dnsmasq \
    dnsdist:dnsdist kresd:knot-resolver pdns_recursor:pdns-recursor; do
    bin=${pair%%:*}
    pkg=${pair#*:}
    command -v "$bin" >/dev/null 2>&1 || [ -x "/usr/sbin/$bin" ] || need+=("$pkg")
  done
  [ ${#need[@]} -eq 0 ] && return 0
  if [ "${PEERS_NO_INSTALL:-0}" = 1 ]; then echo "missing: ${need[*]}" >&2; exit 1; fi
  local sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  log "installing ${need[*]}"
  # Keep the packages' init scripts/units from starting the daemons during installation (policy-rc.d
  # exit 101 = "action forbidden"); a daemon started now would take port 53.
  local made_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
    $sudo chmod 755 /usr/sbin/policy-rc.d
    made_policy=1
  fi
  $sudo apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
  [ $made_policy = 1 ] && $sudo rm -f /usr/sbin/policy-rc.d
  # Stop and disable the packaged services (each server runs below, by this script, on a loopback port).
  if [ -d /run/systemd/system ]; then
    for unit in unbound dnsmasq dnsdist kresd@1 kresd.target kres-cache-gc pdns-recursor; do
      $sudo systemctl disable --now "$unit" >/dev/null 2>&1 || true
    done
  fi
}
install_tools
PATH=$PATH:/usr/sbin:/sbin

work=$(mktemp -d "${TMPDIR:-/tmp}/cordon-peers.XXXXXX")
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ "${PEERS_KEEP:-0}" = 1 ]; then log "work directory kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
tsv=$work/results.tsv
: >"$tsv"

# ---------------------------------------------------------------------------------------------
# 2. Data: Cordon's bench database (UT1 through the real importer), the blocked list, the mixes.
# ---------------------------------------------------------------------------------------------
log "importing UT1 into Cordon's bench database"
db=$work/cordon.db
(cd "$repo" && CORDON_UT1_DIR="$shared/data/categories/ut1" node --expose-gc --import tsx bench/resolver-category-load.ts "$db" >&2)
# Exactly the domains Cordon blocks: the bench policy blocks every category (bench/resolver-serve.ts).
(cd "$repo" && node -e '
  const db = new (require("better-sqlite3"))(process.argv[1], { readonly: true });
  const out = [];
  for (const r of db.prepare("select distinct domain from category_domains where category_id > 0").iterate()) out.push(r.domain);
  require("node:fs").writeFileSync(process.argv[2], out.join("\n") + "\n");
' "$db" "$work/cordon-blocked.txt")
data=$work/data
node "$here/prepare.mjs" "$work/cordon-blocked.txt" "$shared/data/workload/top-domains.txt.gz" "$data" >&2
read -r _ probe_blocked <<<"$(grep '^blocked ' "$data/probes.txt")"
read -r _ probe_sub <<<"$(grep '^subdomain ' "$data/probes.txt")"
read -r _ probe_allowed <<<"$(grep '^allowed ' "$data/probes.txt")"

log "bundling Cordon (esbuild, as bench/resolver-dnsperf.sh with CORDON_BENCH_BUNDLE=1)"
bundle=$repo/node_modules/.cordon-bench-peers
mkdir -p "$bundle"
esb=(--bundle --platform=node --format=esm --target=node20 --external:better-sqlite3 --external:pg --external:pg-native
  "--banner:js=import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" --log-level=warning)
"$repo/node_modules/.bin/esbuild" "$repo/bench/resolver-serve.ts" "${esb[@]}" --outfile="$bundle/serve.mjs"
# The query-log writer thread's entry, beside the bundle under the name the resolver looks for.
"$repo/node_modules/.bin/esbuild" "$repo/apps/resolver/src/querylog/worker.ts" "${esb[@]}" --outfile="$bundle/querylog-worker.mjs"

# ---------------------------------------------------------------------------------------------
# 3. The upstream: one dnsmasq answering every name it is asked with A 192.0.2.10 (TTL 3600).
# ---------------------------------------------------------------------------------------------
pin() { if [ -n "$1" ]; then echo taskset -c "$1"; fi; }
mkdir -p "$work/upstream"
cat >"$work/upstream/dnsmasq.conf" <<EOF
port=$upport
listen-address=127.0.0.1
bind-interfaces
no-resolv
no-hosts
no-negcache
address=/#/192.0.2.10
local-ttl=3600
cache-size=0
pid-file=
log-facility=$work/upstream/dnsmasq.log
EOF
$(pin "$up_cpu") dnsmasq -k -C "$work/upstream/dnsmasq.conf" >"$work/upstream/out.log" 2>&1 &
up_pid=$!
pids+=("$up_pid")

dig_a() { dig @127.0.0.1 -p "$1" +short +tries=1 +time=1 "$2" A 2>/dev/null | tail -n 1; }
for _ in $(seq 1 50); do [ "$(dig_a "$upport" "$probe_allowed")" = 192.0.2.10 ] && break; sleep 0.1; done
[ "$(dig_a "$upport" "$probe_allowed")" = 192.0.2.10 ] || { echo "upstream did not start" >&2; cat "$work/upstream/out.log" >&2; exit 1; }

perf() { taskset -c "$perf_cpu" dnsperf -s 127.0.0.1 "$@"; }
field() { sed -n "s/^ *$1: *\([0-9.]*\).*/\1/p" "$2" | head -n 1; }
for r in $(seq 1 "$runs"); do
  perf -p "$upport" -d "$data/q-cached.txt" -l "$secs" -c "$clients" -q "$outstanding" -t 2 >"$work/upstream/perf-$r.txt" 2>&1 || true
  printf 'upstream\tsat\t%s\t%s\n' "$r" "$(field 'Queries per second' "$work/upstream/perf-$r.txt")" >>"$tsv"
done
log "upstream: $(grep -h 'Queries per second' "$work"/upstream/perf-*.txt | tr -s ' ' | tr '\n' ';')"

# ---------------------------------------------------------------------------------------------
# 4. The servers under test, each with its own configuration in $work/<server>/.
# ---------------------------------------------------------------------------------------------
# CPU ticks (utime + stime, every thread) of process $1, 0 once it is gone (proc(5) /proc/PID/stat).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
# Waits until process $1 used at most 2 % of a core over 0.5 s, at most $settle_max s; prints the seconds waited.
settle() {
  local start=$SECONDS hz prev now
  hz=$(getconf CLK_TCK)
  prev=$(cpu_ticks "$1")
  while [ $((SECONDS - start)) -lt "$settle_max" ]; do
    sleep 0.5
    now=$(cpu_ticks "$1")
    [ $((now - prev)) -le $((hz / 100)) ] && break
    prev=$now
  done
  echo $((SECONDS - start))
}

start_server() { # $1 = server; sets srv_pid
  local s=$1 d=$work/$1
  mkdir -p "$d"
  case $s in
  cordon)
    # glibc's heap settings and the node flags of the resolver's unit (Cordon sets none itself;
    # docs/decisions.md "The addon does UDP I/O only").
    # shellcheck disable=SC2046
    env $(sed -n 's/^Environment=\(MALLOC_[A-Z_]*=[0-9]*\)$/\1/p' "$unit") NODE_OPTIONS="$cordon_node_options" \
      $(pin "$server_cpu") node --expose-gc "$bundle/serve.mjs" "$db" "$port" "$upport" >"$d/out.log" 2>&1 &
    ;;
  unbound)
    cat >"$d/unbound.conf" <<EOF
server:
  interface: 127.0.0.1
  port: $port
  do-ip6: no
  num-threads: 1
  username: ""
  chroot: ""
  directory: "$d"
  pidfile: "$d/unbound.pid"
  use-syslog: no
  logfile: ""
  verbosity: 0
  do-not-query-localhost: no
  module-config: "iterator"
  msg-cache-size: 128m
  rrset-cache-size: 256m
  access-control: 127.0.0.0/8 allow
  include: "$data/unbound-blocked.conf"
remote-control:
  control-enable: no
forward-zone:
  name: "."
  forward-addr: 127.0.0.1@$upport
EOF
    $(pin "$server_cpu") unbound -d -c "$d/unbound.conf" >"$d/out.log" 2>&1 &
    ;;
  dnsmasq)
    cat >"$d/dnsmasq.conf" <<EOF
port=$port
listen-address=127.0.0.1
bind-interfaces
no-resolv
no-hosts
server=127.0.0.1#$upport
cache-size=200000
pid-file=
log-facility=$d/dnsmasq.log
conf-file=$data/dnsmasq-blocked.conf
EOF
    $(pin "$server_cpu") dnsmasq -k -C "$d/dnsmasq.conf" >"$d/out.log" 2>&1 &
    ;;
  dnsdist)
    cat >"$d/dnsdist.conf" <<EOF
setLocal('127.0.0.1:$port')
setSecurityPollSuffix('')
newServer({ address = '127.0.0.1:$upport' })
getPool(''):setCache(newPacketCache(200000, { maxTTL = 86400 }))
blocked = newSuffixMatchNode()
for line in io.lines('$data/blocked.txt') do blocked:add(line) end
addAction(SuffixMatchNodeRule(blocked, true), SpoofAction('127.0.0.1'))
EOF
    $(pin "$server_cpu") dnsdist --supervised --disable-syslog -C "$d/dnsdist.conf" >"$d/out.log" 2>&1 &
    ;;
  knot-resolver)
    cat >"$d/kresd.conf" <<EOF
net.listen('127.0.0.1', $port, { kind = 'dns' })
trust_anchors.remove('.')
cache.open(256 * MB, 'lmdb://$d/cache')
policy.add(policy.rpz(policy.DENY, '$data/blocked.rpz', false))
policy.add(policy.all(policy.STUB({ '127.0.0.1@$upport' })))
EOF
    $(pin "$server_cpu") kresd -n -c "$d/kresd.conf" "$d" >"$d/out.log" 2>&1 &
    ;;
  pdns-recursor)
    cat >"$d/recursor.conf" <<EOF
local-address=127.0.0.1
local-port=$port
allow-from=127.0.0.0/8
threads=1
pdns-distributes-queries=no
daemon=no
socket-dir=$d
forward-zones-recurse=.=127.0.0.1:$upport
dont-query=
dnssec=off
security-poll-suffix=
max-cache-entries=1000000
quiet=yes
lua-config-file=$d/recursor.lua
EOF
    echo "rpzFile('$data/blocked.rpz', { policyName = 'cordon-peers' })" >"$d/recursor.lua"
    $(pin "$server_cpu") pdns_recursor --config-dir="$d" >"$d/out.log" 2>&1 &
    ;;
  esac
  srv_pid=$!
}

# USS (Private_Clean + Private_Dirty), PSS and RSS of process $1, MB, tab-separated (proc(5)
# /proc/PID/smaps_rollup; bench/support/proc-memory.ts reads the same for the TypeScript benches).
mem_mb() {
  awk '/^Rss:/ { r = $2 } /^Pss:/ { p = $2 } /^Private_(Clean|Dirty):/ { u += $2 }
    END { if (r == "") exit 1; printf "%.1f\t%.1f\t%.1f", u / 1024, p / 1024, r / 1024 }' "/proc/$1/smaps_rollup" 2>/dev/null ||
    printf 'n/a\tn/a\tn/a'
}
now() { date +%s.%N; }

# One run at $fixed_qps (dnsperf -Q … -v) on the server $srv_pid, for mix $m: $1 = row kind
# (fixed|steady), $2 = run, $3 = query file, $4 = seconds, $5 = dnsperf output. Prints the row
#   <server> <mix> <kind> <run> <p50 ms> <p99 ms> <lost> <p99.9 ms> <CPU µs per answered query> <answered> <load average>
# The CPU time is the whole process's (utime + stime of every thread, /proc/PID/stat) from just before
# the run until the server is idle again after it (settle): work a server defers past the run — Cordon's
# query-log writer thread at idle priority — is counted too. Divided by the queries dnsperf got answers to.
fixed_run() {
  local kind=$1 r=$2 qf=$3 len=$4 f=$5 t0 t1 hz done pct p50 p99 p999 cpu
  hz=$(getconf CLK_TCK)
  t0=$(cpu_ticks "$srv_pid")
  perf -p "$port" -d "$qf" -l "$len" -c "$clients" -Q "$fixed_qps" -t 2 -v >"$f" 2>&1 || true
  settle "$srv_pid" >/dev/null
  t1=$(cpu_ticks "$srv_pid")
  done=$(field 'Queries completed' "$f")
  cpu=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v n="${done:-0}" 'BEGIN { if (n > 0 && b >= a) printf "%.2f", (b - a) / hz * 1e6 / n; else print "n/a" }')
  pct=$(node "$repo/bench/dnsperf-percentiles.mjs" "$f")
  p50=$(sed -n 's|.* p50 \([0-9.n/a]*\) .*|\1|p' <<<"$pct")
  p99=$(sed -n 's|.* p99 \([0-9.n/a]*\) .*|\1|p' <<<"$pct")
  p999=$(sed -n 's|.* p99\.9 \([0-9.n/a]*\) .*|\1|p' <<<"$pct")
  # The -v output is large (one line per answer); keep only the summary.
  grep -v '^> ' "$f" >"$f.sum" && mv "$f.sum" "$f"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s' "$s" "$m" "$kind" "$r" "$p50" "$p99" "$(field 'Queries lost' "$f")" \
    "$p999" "$cpu" "${done:-0}" "$(cut -d ' ' -f 1 /proc/loadavg)"
}

for s in $servers; do
  log "== $s: loading"
  t0=$(now)
  start_server "$s"
  pids+=("$srv_pid")
  ready=0
  for _ in $(seq 1 3000); do
    if ! kill -0 "$srv_pid" 2>/dev/null; then break; fi
    if [ "$(dig_a "$port" "$probe_blocked")" = 127.0.0.1 ]; then ready=1; break; fi
    sleep 0.1
  done
  load=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  if [ $ready != 1 ]; then
    log "$s did not come up (log: $work/$s/out.log)"
    tail -n 20 "$work/$s/out.log" >&2 || true
    printf '%s\tfailed\t%s\n' "$s" "did not start" >>"$tsv"
    kill "$srv_pid" 2>/dev/null || true
    continue
  fi
  sleep 1 # let the process settle before reading its memory
  printf '%s\tload\t%s\n%s\tmem_ready\t%s\n' "$s" "$load" "$s" "$(mem_mb "$srv_pid")" >>"$tsv"
  b=$(dig_a "$port" "$probe_blocked")
  sub=$(dig_a "$port" "$probe_sub")
  allowed=$(dig_a "$port" "$probe_allowed")
  check="$probe_blocked → ${b:-none}; $probe_sub → ${sub:-none}; $probe_allowed → ${allowed:-none}"
  ok=ok
  [ "$b" = 127.0.0.1 ] && [ "$sub" = 127.0.0.1 ] && [ "$allowed" = 192.0.2.10 ] || ok=FAILED
  printf '%s\tcheck\t%s\t%s\n' "$s" "$ok" "$check" >>"$tsv"
  log "$s ready in ${load}s; check $ok: $check"
  inv=0
  for m in $mixes; do
    q=$data/q-$m.txt
    if [ "$m" = cached ] || [ "$m" = mixed ]; then
      # One pass first, so every allowed name is in the server's cache before the measured runs
      # (again, up to 3 passes, while some queries of a pass went unanswered).
      for pass in 1 2 3; do
        perf -p "$port" -d "$q" -n 1 -c "$clients" -Q 20000 -t 3 >"$work/$s/warm-$m-$pass.txt" 2>&1 || true
        lost=$(field 'Queries lost' "$work/$s/warm-$m-$pass.txt")
        log "$s $m warm-up pass $pass: $(field 'Queries sent' "$work/$s/warm-$m-$pass.txt") sent, ${lost:-?} lost"
        [ "${lost:-1}" = 0 ] && break
      done
    fi
    for r in $(seq 1 "$runs"); do
      for kind in sat fixed; do
        inv=$((inv + 1))
        if [ "$m" = distinct ]; then
          # A fresh prefix per dnsperf invocation: no name is ever asked twice (no answer cache helps).
          sed "s/^/r$inv/" "$data/q-distinct.txt" >"$work/q-run.txt"
          qf=$work/q-run.txt
        else
          qf=$q
        fi
        f=$work/$s/$m-$kind-$r.txt
        if [ $kind = sat ]; then
          perf -p "$port" -d "$qf" -l "$secs" -c "$clients" -q "$outstanding" -t 2 >"$f" 2>&1 || true
          row=$(printf '%s\t%s\tsat\t%s\t%s\t%s\t%s' "$s" "$m" "$r" "$(field 'Queries per second' "$f")" \
            "$(field 'Queries lost' "$f")" "$(field 'Queries sent' "$f")")
          # Every answer of every mix should be NOERROR (A 127.0.0.1 or A 192.0.2.10): anything else is reported.
          printf '%s\t%s\trcodes\t%s\n' "$s" "$m" "$(sed -n 's/^ *Response codes: *//p' "$f")" >>"$tsv"
        else
          # The saturating run may leave work behind (Cordon's query-log writer writes its backlog at
          # idle priority on the same core): the latency at a fixed load is measured once it is done.
          log "$s $m fixed run $r: started after $(settle "$srv_pid") s of settling"
          row=$(fixed_run fixed "$r" "$qf" "$secs" "$f")
        fi
        printf '%s\n' "$row" >>"$tsv"
        log "$s $m $kind run $r: $(cut -f 5- <<<"$row" | tr '\t' ' ')"
      done
    done
    if [ "$steady_secs" -gt 0 ]; then
      # The steady state an operator lives in: $fixed_qps held for $steady_secs s, not only right after a settle.
      inv=$((inv + 1))
      if [ "$m" = distinct ]; then
        sed "s/^/r$inv/" "$data/q-distinct.txt" >"$work/q-run.txt"
        qf=$work/q-run.txt
      else
        qf=$q
      fi
      log "$s $m steady run ($steady_secs s at $fixed_qps QPS): started after $(settle "$srv_pid") s of settling"
      row=$(fixed_run steady 1 "$qf" "$steady_secs" "$work/$s/$m-steady.txt")
      printf '%s\n' "$row" >>"$tsv"
      log "$s $m steady run: $(cut -f 5- <<<"$row" | tr '\t' ' ')"
    fi
  done
  rm -f "$work/q-run.txt"
  printf '%s\tmem_after\t%s\n' "$s" "$(mem_mb "$srv_pid")" >>"$tsv"
  kill -TERM "$srv_pid" 2>/dev/null || true
  # Cordon writes the rest of its query log before it exits (a spooled backlog: up to a minute).
  for _ in $(seq 1 "$([ "$s" = cordon ] && echo 1200 || echo 100)"); do kill -0 "$srv_pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$srv_pid" 2>/dev/null || true
  wait "$srv_pid" 2>/dev/null || true
  if [ "$s" = cordon ]; then
    # Its query log over every run (the metrics line bench/resolver-serve.ts prints when stopped):
    # answering at a saturating rate must not have cost log rows unnoticed.
    qlog=$(grep -o '"queryLog":{"written":[0-9]*,"dropped":[0-9]*' "$work/$s/out.log" | tail -n 1)
    answered=$(grep -o '^{"queries":[0-9]*' "$work/$s/out.log" | tail -n 1 | cut -d: -f2)
    printf '%s\tquerylog\t%s\t%s\t%s\n' "$s" "$(sed -n 's/.*"written":\([0-9]*\).*/\1/p' <<<"$qlog")" \
      "$(sed -n 's/.*"dropped":\([0-9]*\).*/\1/p' <<<"$qlog")" "${answered:-}" >>"$tsv"
  fi
done

# ---------------------------------------------------------------------------------------------
# 5. The table.
# ---------------------------------------------------------------------------------------------
versions() {
  local s
  for s in $servers; do
    case $s in
    cordon) echo "cordon $(cd "$repo" && git rev-parse --short HEAD 2>/dev/null || echo '?') (node $(node --version), esbuild bundle, NODE_OPTIONS=\"$cordon_node_options\")" ;;
    unbound) echo "unbound $(unbound -V 2>/dev/null | sed -n 's/^Version //p')" ;;
    dnsmasq) echo "dnsmasq $(dnsmasq --version | sed -n 's/^Dnsmasq version \([^ ]*\).*/\1/p')" ;;
    dnsdist) echo "dnsdist $(dnsdist --version 2>/dev/null | sed -n 's/^dnsdist \([^ ]*\).*/\1/p')" ;;
    knot-resolver) echo "knot-resolver $(kresd --version | sed -n 's/.*version //p')" ;;
    pdns-recursor) echo "pdns-recursor $(pdns_recursor --version 2>&1 | sed -n 's/.*PowerDNS Recursor \([^ ]*\).*/\1/p' | head -n 1)" ;;
    esac
  done | paste -sd ';' | sed 's/;/; /g'
}
{
  echo "Machine: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1), $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r); $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "Versions: $(versions); dnsperf $(dnsperf -h 2>&1 | sed -n 's/^Version *//p' | head -n 1)"
  echo "Settings: $runs run(s) of ${secs} s per mix; server on CPU $server_cpu, dnsperf on CPU $perf_cpu (-c $clients), upstream on CPU ${up_cpu:-any}; latency at -Q $fixed_qps, each run once the server is idle after the saturating run before it (< 2 % of a core for 0.5 s, at most ${settle_max} s); steady run ${steady_secs} s at -Q $fixed_qps per mix; load average at the end $(cut -d ' ' -f 1-3 /proc/loadavg)"
  echo
  node "$here/table.mjs" "$tsv" "$servers" "$mixes" "$(wc -l <"$data/blocked.txt")" "$fixed_qps" "$steady_secs"
} >"$results"
cat "$results"
log "results written to $results"
