#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# `sealprov bench cpu` still runs and prints every figure it promises (tiny sizes;
# the figures themselves are not judged: timings belong to benchmarks, not tests).
set -u
sp="${top_builddir:-.}/tools/sealprov"
if [ ! -x "$sp" ]; then
  echo "bench_smoke: $sp not built" >&2
  exit 99
fi
bench() { "$sp" bench cpu "$@"; }
out=$(bench --quick --repeat 1 --threads 2) || { echo "bench_smoke: exit status $?" >&2; exit 1; }
printf '%s\n' "$out"
for key in benchmark threads fp_mul_per_s g1_mixed_add_per_s pairing_ms g1_msm_2_10_ms \
           g1_msm_2_12_ms g2_msm_2_10_ms ntt_2_14_ms ntt_coset_2_14_ms; do
  printf '%s\n' "$out" | grep -q "^  \"$key\": " || { echo "bench_smoke: key $key missing" >&2; exit 1; }
done
printf '%s\n' "$out" | grep -q '"threads": 2,' || { echo "bench_smoke: thread count not reported" >&2; exit 1; }
# bad options are usage errors (exit 2), not crashes
bench --threads 0 >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || { echo "bench_smoke: --threads 0 gave exit $rc, want 2" >&2; exit 1; }
bench --repeat x >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || { echo "bench_smoke: --repeat x gave exit $rc, want 2" >&2; exit 1; }
if command -v python3 >/dev/null 2>&1; then
  printf '%s\n' "$out" | python3 -c 'import json,sys; json.load(sys.stdin)' ||
    { echo "bench_smoke: output is not valid JSON" >&2; exit 1; }
fi
exit 0
