#!/usr/bin/env bash
# The native modules under AddressSanitizer and UndefinedBehaviorSanitizer (docs/decisions.md "The
# addon does UDP I/O only"): builds a separate copy with -fsanitize=address,undefined, runs the
# package's own tests (test/udp-batch.test.ts) against it with libasan preloaded into node, then
# fuzzes what the addon reads from JavaScript's memory (test/fuzz_batch.cc): libFuzzer when clang
# has it, else a deterministic random-input run. Any report fails the script.
# Usage: packages/udp-batch/test/sanitize.sh [fuzz seconds, default 20]. Needs gcc/g++ and make.
set -euo pipefail
pkg=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$pkg/../.." && pwd)
fuzz_seconds=${1:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
cp -r "$pkg/binding.gyp" "$pkg/package.json" "$pkg/src" "$work/"
# node-gyp's Makefile adds CXXFLAGS and LDFLAGS to the binding's own flags; npm puts its node-gyp on PATH.
(cd "$work" && CXX=g++ CXXFLAGS="$san" LDFLAGS="-fsanitize=address,undefined" npm run --silent rebuild >"$work/build.log" 2>&1) || {
  cat "$work/build.log"
  exit 1
}
for m in udp_batch sched_idle; do
  nm -D "$work/build/Release/$m.node" | grep -q __asan_report || { echo "sanitize: $m.node is not instrumented" >&2; exit 1; }
done

# node itself is not instrumented: libasan must come first; node's own allocations at exit are no leak of ours.
libasan=$(g++ -print-file-name=libasan.so)
echo "sanitize: the package's tests against the ASan+UBSan build"
# No PostgreSQL here: the addon's tests need no database, and pg_dump must not run under libasan.
(cd "$root" && env -u CORDON_TEST_DATABASE_URL UDP_BATCH_ADDON_DIR="$work/build/Release" LD_PRELOAD="$libasan" \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  npx vitest run --config packages/udp-batch/vitest.config.ts --reporter=dot)

if clang++ -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -std=c++17 -O1 -g \
  "$pkg/test/fuzz_batch.cc" -o "$work/fuzz_batch" 2>"$work/clang.log"; then
  echo "sanitize: libFuzzer, ${fuzz_seconds} s"
  mkdir -p "$work/corpus"
  "$work/fuzz_batch" -max_total_time="$fuzz_seconds" -print_final_stats=1 "$work/corpus" 2>&1 | grep -E '^(stat::number_of_executed_units|Done|==|SUMMARY)' || true
  test "${PIPESTATUS[0]}" -eq 0
else
  echo "sanitize: no libFuzzer (clang++ with -fsanitize=fuzzer); a deterministic random-input run, ${fuzz_seconds} s"
  g++ $san -DUDP_BATCH_STANDALONE -std=c++17 -O1 "$pkg/test/fuzz_batch.cc" -o "$work/fuzz_batch"
  "$work/fuzz_batch" "$fuzz_seconds"
fi
echo "sanitize: no report"
