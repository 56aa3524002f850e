#!/usr/bin/env bash
# unbound's memory with the same 1,000,000 categorised domains as bench/resolver-memory.ts, for the
# USS / PSS / RSS beside Cordon's (bench/README.md "Resolver memory"): every domain of the bench
# database's `category_domains` as a `local-zone … redirect` answered `A 127.0.0.1` (the peer
# benchmark's configuration, bench/peers/run.sh), read once it answers (+3 s) and after 200,000
# UDP queries of those names.
#
#   bench/peers/memory.sh [sqlite-file]
#
# The file is bench/resolver-memory.ts's (default: its default, resolver-memory's cordon.sqlite in
# the OS temp folder; run that bench first). Needs unbound (Debian's package) and dig.
# MEMORY_PORT (55363) is the loopback port; MEMORY_QUERIES (200000) the queries sent;
# CORDON_SHARED_DIR (../shared) holds data/workload/top-domains.txt.gz, which prepare.mjs reads.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
db=${1:-${TMPDIR:-/tmp}/cordon-resolver-memory/cordon.sqlite}
port=${MEMORY_PORT:-55363}
queries=${MEMORY_QUERIES:-200000}
shared=${CORDON_SHARED_DIR:-$repo/../shared}
[ -f "$db" ] || { echo "no bench database at $db: run node --import tsx bench/resolver-memory.ts first" >&2; exit 1; }
unbound=$(command -v unbound || echo /usr/sbin/unbound)
[ -x "$unbound" ] || { echo "unbound is not installed (apt-get install unbound)" >&2; exit 1; }

work=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The domains Cordon's bench policy blocks (every category), one per line.
(cd "$repo" && node -e '
  const db = new (require("better-sqlite3"))(process.argv[1], { readonly: true });
  const out = [];
  for (const r of db.prepare("select distinct domain from category_domains where category_id > 0").iterate()) out.push(r.domain);
  require("node:fs").writeFileSync(process.argv[2], out.join("\n") + "\n");
' "$db" "$work/blocked-domains.txt")
# unbound's list in the peer benchmark's form (prepare.mjs also writes the other peers' inputs: kept small).
PEERS_DISTINCT_NAMES=1 PEERS_CACHED_NAMES=1 PEERS_MIXED_NAMES=10 \
  node "$here/prepare.mjs" "$work/blocked-domains.txt" "$shared/data/workload/top-domains.txt.gz" "$work/data" >/dev/null
count=$(wc -l <"$work/data/blocked.txt")
probe=$(head -n 1 "$work/data/blocked.txt")

cat >"$work/unbound.conf" <<EOF
server:
  interface: 127.0.0.1
  port: $port
  do-ip6: no
  num-threads: 1
  username: ""
  chroot: ""
  directory: "$work"
  pidfile: "$work/unbound.pid"
  use-syslog: no
  logfile: ""
  verbosity: 0
  do-not-query-localhost: no
  module-config: "iterator"
  msg-cache-size: 128m
  rrset-cache-size: 256m
  access-control: 127.0.0.0/8 allow
  include: "$work/data/unbound-blocked.conf"
remote-control:
  control-enable: no
EOF

# USS (Private_Clean + Private_Dirty), PSS and RSS of process $1, MB (proc(5) /proc/PID/smaps_rollup).
mem() {
  awk '/^Rss:/ { r = $2 } /^Pss:/ { p = $2 } /^Private_(Clean|Dirty):/ { u += $2 }
    END { printf "USS %.1f / PSS %.1f / RSS %.1f MB", u / 1024, p / 1024, r / 1024 }' "/proc/$1/smaps_rollup"
}

t0=$(date +%s.%N)
"$unbound" -d -c "$work/unbound.conf" >"$work/out.log" 2>&1 &
pid=$!
for _ in $(seq 1 3000); do
  kill -0 "$pid" 2>/dev/null || { cat "$work/out.log" >&2; exit 1; }
  [ "$(dig @127.0.0.1 -p "$port" +short +tries=1 +time=1 "$probe" A 2>/dev/null | tail -n 1)" = 127.0.0.1 ] && break
  sleep 0.1
done
load=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
sleep 3
ready=$(mem "$pid")
# The queries: blocked names round-robin, at most 100 in flight, as bench/resolver-memory.ts sends them.
answered=$(node -e '
  const dgram = require("node:dgram");
  const names = require("node:fs").readFileSync(process.argv[1], "utf8").trim().split("\n");
  const [port, total] = [Number(process.argv[2]), Number(process.argv[3])];
  const s = dgram.createSocket("udp4");
  let sent = 0, got = 0, inflight = 0;
  const query = (id, name) => {
    const labels = name.split(".").map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]));
    const h = Buffer.alloc(12); h.writeUInt16BE(id & 0xffff, 0); h.writeUInt16BE(0x0100, 2); h.writeUInt16BE(1, 4);
    return Buffer.concat([h, ...labels, Buffer.from([0, 0, 1, 0, 1])]);
  };
  const pump = () => { while (inflight < 100 && sent < total) { s.send(query(sent, names[sent % names.length]), port, "127.0.0.1"); sent++; inflight++; } };
  let idle;
  const done = () => { s.close(); console.log(got); };
  s.on("message", () => { got++; inflight--; clearTimeout(idle); if (got >= total) return done(); pump(); idle = setTimeout(done, 2000); });
  pump();
  idle = setTimeout(done, 2000);
' "$work/data/blocked.txt" "$port" "$queries")
sleep 1
after=$(mem "$pid")
echo "unbound $("$unbound" -V 2>/dev/null | sed -n 's/^Version //p'), $count domains: answering after $load s; ready $ready; after $answered/$queries queries $after"
