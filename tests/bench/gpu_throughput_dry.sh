#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# dev/gpu-throughput.sh --dry-run: the multi-GPU script's steps (topology, throughput
# per GPU count, fault on the last device, the selection checker) on 4 CPU devices
# standing in for GPUs and a fake 2-node sysfs tree, so the script the GPU machines run
# cannot rot between the sessions that have them. Its figures mean nothing; what is
# checked is that every step ran, produced its files and saw what it should.
set -eu
: "${top_builddir:?}" "${top_srcdir:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
rc=0
BUILD=$top_builddir DRY_GPUS=4 JOBS=1 PARTITIONS=8 sh "$top_srcdir/dev/gpu-throughput.sh" \
  --dry-run "$tmp/out" 10 || rc=$?
o=$tmp/out
[ "$rc" -eq 0 ] || fail "exit $rc"
for c in topology "throughput 2^10 x 1" "throughput 2^10 x 2" "throughput 2^10 x 4" fault \
         select-checker select-checker-negative; do
  grep -q "^PASS $c: " "$o/checks.txt" || fail "no PASS for $c"
done
! grep -q '^FAIL' "$o/checks.txt" || fail "a check failed"
# topology: the stand-ins of the first half on node 0, the others on node 1
[ "$(awk 'NR > 1 { printf "%s:%s ", $2, $7 }' "$o/topology.txt")" = "gpu0:0 gpu1:0 gpu2:1 gpu3:1 " ] \
  || fail "topology: $(cat "$o/topology.txt")"
# throughput: one table row per GPU count, with the ratio to 1 GPU and one busy figure per GPU
[ "$(grep -c '^| 2^10 | ' "$o/scaling.md")" = 3 ] || fail "scaling.md rows"
grep -q '^| 2^10 | 1 | 8 | .* | 1.000 | ' "$o/scaling.md" || fail "1-GPU row"
[ "$(grep '^| 2^10 | 4 | ' "$o/scaling.md" | grep -o ' ; ' | grep -c .)" = 3 ] || fail "4-GPU row: 4 devices"
[ "$(grep -c '^dev size=10 gpus=4 device=' "$o/summary.txt")" = 4 ] || fail "summary: 4 devices"
# every partition of every run was done
[ "$(grep -c '^run size=10 gpus=[124] partitions=8 ' "$o/summary.txt")" = 3 ] || fail "summary: runs"
# fault: the last device failed, proved nothing (a build with --enable-fault-injection;
# without it the step says it was skipped, and why)
if [ "${SP_FAULT_INJECTION:-no}" = yes ]; then
  grep -q '^dev fault gpus=4 device=3 partitions=0 .* failed=[1-9]' "$o/summary.txt" || fail "fault summary"
else
  grep -q '^PASS fault: skipped: this build has no fault injection' "$o/checks.txt" || fail "fault: not skipped"
fi
echo "PASS: gpu_throughput_dry.sh"
