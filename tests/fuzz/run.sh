#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# tests/fuzz/run.sh BUILD_DIR [SECONDS [NAME...]]
# Runs each libFuzzer harness of a build configured with --enable-fuzzing for SECONDS
# (default $FUZZ_SECONDS, else 30) on a scratch copy of its seed corpus
# (tests/fuzz/corpus/NAME), with its dictionary when there is one. Findings (crash-*,
# leak-*, timeout-*, oom-*) go to BUILD_DIR/fuzz-artifacts/NAME/; the scratch corpus
# (the seeds plus what the run added) stays in BUILD_DIR/fuzz-corpus/NAME/.
# Exit 1 when any harness found something; the artifact paths are printed.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [SECONDS [NAME...]]" >&2; exit 2; }
bld=$(cd "$1" && pwd); shift
secs=${FUZZ_SECONDS:-30}
if [ $# -ge 1 ]; then secs=$1; shift; fi
names=${*:-ini params vk spa point proof r1cs wtns zkey snarkjs manifest}
failed=
for name in $names; do
  prog="$bld/tests/fuzz/fuzz_$name"
  [ -x "$prog" ] || { echo "fuzz: $prog not built (configure --enable-fuzzing, then make)" >&2; exit 2; }
  work="$bld/fuzz-corpus/$name"; art="$bld/fuzz-artifacts/$name"
  mkdir -p "$work" "$art"
  dict=
  [ -f "$src/tests/fuzz/dict/$name.dict" ] && dict="-dict=$src/tests/fuzz/dict/$name.dict"
  echo "== fuzz_$name: ${secs}s"
  # -rss_limit_mb / -malloc_limit_mb: an allocation sized by an unchecked length is a
  # finding. -timeout: one input may take at most 10 s (a valid .params seed takes ms).
  # shellcheck disable=SC2086
  if ! SEALPROV_FUZZ_VK="$src/tests/fuzz/corpus/vk/setup64.vk" \
      "$prog" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
      -print_final_stats=1 -artifact_prefix="$art/" $dict "$work" "$src/tests/fuzz/corpus/$name" \
      > "$bld/fuzz-$name.log" 2>&1; then
    failed="$failed $name"
    tail -60 "$bld/fuzz-$name.log"
  fi
  grep -a -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added|stat::peak_rss_mb)' \
    "$bld/fuzz-$name.log" || true
  found=$(find "$art" -type f | head -20)
  if [ -n "$found" ]; then
    failed="$failed $name"
    echo "fuzz_$name findings:"; echo "$found"
  fi
done
if [ -n "$failed" ]; then
  echo "fuzz: findings in:$failed (reproduce: BUILD/tests/fuzz/fuzz_NAME FILE)" >&2
  exit 1
fi
echo "fuzz: no findings"
