#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# soak_plan.sh -- `sealprov soak` (issue 22 item 10) on two CPU devices, a few seconds:
# the same plan the GPU runs at 2^20 and 2^27 (dev/soak.sh gpu-long), at 2^8, so that
# its code path is tested everywhere. Every job must end as planned (cancels, bad
# partitions, close with jobs in flight, srs reloads), every proof verify, the time
# series be written, the parameter files be removed; and the memory verdict must
# depend on the figures: a fake nvidia-smi whose memory grows makes the run FAIL, the
# same with a threshold above its growth PASS.
set -u

: "${top_builddir:?run through make check}"
SP="$top_builddir/tools/sealprov"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/sp_soakplan_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# expect CODE DESCRIPTION -- CMD...: runs CMD, stdout in $T/out, stderr in $T/err
expect() {
  want=$1; what=$2; shift 3
  "$@" >"$T/out" 2>"$T/err"
  got=$?
  if [ "$got" -ne "$want" ]; then
    fail "$what: exit $got, expected $want"
    sed 's/^/    /' "$T/out"; tail -20 "$T/err" | sed 's/^/    /'
  fi
}
has() { grep -q -- "$1" "$T/out" || { fail "$2: output lacks '$1'"; sed 's/^/    /' "$T/out"; }; }

cat >"$T/two.ini" <<EOF2
[provider]
log_level = error
max_jobs = 1000
[cpu0]
type = cpu
threads = 1
[cpu1]
type = cpu
threads = 1
EOF2

plan="--log 8 --inputs 3 --witnesses 3 --partitions 48 --cycles 3 --segments 2 --threads 3
  --max-parts 3 --cancel-percent 20 --bad-percent 20 --burst 3 --big-log 8 --big-partitions 7
  --big-job 3 --sample-ms 50 --seed 5"

# shellcheck disable=SC2086
expect 0 "the plan on two CPU devices" -- "$SP" soak -c "$T/two.ini" --dir "$T/run" $plan \
  --nvidia-smi none --json
has '"verdict": "PASS"' "verdict"
has '"failures": 0' "failures"
# main: every job ended; bad partitions caught; cancels and the close burst happened
main=$(sed 's/.*"jobs": {"main": {\([^}]*\)}.*/\1/' "$T/out")
echo "$main" | grep -q '"partitions_invalid": 0' || fail "main: invalid proofs: $main"
jobs=$(echo "$main" | grep -o '"jobs": [0-9]*' | sed 's/.*: //')
ended=$(echo "$main" | grep -o '"ended": [0-9]*' | sed 's/.*: //')
bad=$(echo "$main" | grep -o '"bad_jobs": [0-9]*' | sed 's/.*: //')
caught=$(echo "$main" | grep -o '"bad_caught": [0-9]*' | sed 's/.*: //')
burst=$(echo "$main" | grep -o '"burst": [0-9]*' | sed 's/.*: //')
reloads=$(echo "$main" | grep -o '"reloads": [0-9]*' | sed 's/.*: //')
proved=$(echo "$main" | grep -o '"partitions_proved": [0-9]*' | sed 's/.*: //')
verified=$(echo "$main" | grep -o '"partitions_verified": [0-9]*' | sed 's/.*: //')
if [ "${jobs:-0}" -eq 0 ] || [ "$jobs" != "$ended" ]; then fail "main: $jobs jobs, $ended ended"; fi
if [ "${bad:-0}" -eq 0 ] || [ "$bad" != "$caught" ]; then fail "main: $bad bad jobs, $caught caught"; fi
[ "${burst:-0}" -eq 9 ] || fail "main: $burst jobs in flight at the three closes, expected 9"
[ "${reloads:-0}" -eq 6 ] || fail "main: $reloads srs reloads, expected 6 (one per segment)"
if [ "${proved:-0}" -eq 0 ] || [ "$proved" != "$verified" ]; then fail "main: $proved proved, $verified verified"; fi
# big: 3 + 3 (one bad) + 1, a cancelled job of 3 behind the bad one, one reload; then a
# second cycle (open, load, one job of 3, close)
big=$(sed 's/.*"big": {\([^}]*\)}}.*/\1/' "$T/out")
echo "$big" | grep -q '"jobs": 5, "ended": 5, "ok": 3, "bad_jobs": 1, "bad_caught": 1, "cancel_jobs": 1, "cancelled": 1' ||
  fail "big phase jobs: $big"
echo "$big" | grep -q '"partitions_submitted": 13, "partitions_proved": 9, "partitions_verified": 9, "partitions_invalid": 0, "partitions_cancelled": 3' ||
  fail "big phase partitions: $big"
# the memory series were judged (RSS at least; CPU devices hold no device memory)
has '"metric": "rss_mib", "series": "main: idle, within a cycle"' "main idle RSS series"
has '"metric": "rss_mib", "series": "main: idle at each cycle'"'"'s end"' "main cycle-end RSS series"
has '"metric": "rss_mib", "series": "main: after each close"' "main closed RSS series"
has '"metric": "rss_mib", "series": "big: after each close"' "big closed RSS series"
# the time series, and no parameter file left behind
csv="$T/run/soak-series.csv"
head -1 "$csv" | grep -q '^t_s,phase,cycle,segment,mark,partitions_done,' || fail "CSV header: $(head -1 "$csv")"
for m in idle closed big-job big-closed baseline-closed; do
  grep -q ",$m," "$csv" || fail "CSV has no '$m' sample"
done
ls "$T/run"/*.params >/dev/null 2>&1 && fail "parameter files left in $T/run: $(ls "$T/run")"

# The verdict follows the figures: GPU memory (a fake nvidia-smi) that grows by 20 MiB at
# every sample fails the run; a threshold above the growth passes it.
cat >"$T/smi" <<EOF2
#!/bin/sh
n=\$(cat "$T/smi.count" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$T/smi.count"
echo "\$((1000 + n * 20)), 80000"
EOF2
chmod +x "$T/smi"
small="--log 8 --inputs 2 --witnesses 2 --partitions 12 --cycles 2 --segments 2 --threads 2
  --max-parts 2 --burst 1 --sample-ms 1000 --seed 6"
# shellcheck disable=SC2086
expect 1 "growing GPU memory" -- "$SP" soak -c "$T/two.ini" --dir "$T/grow" $small \
  --nvidia-smi "$T/smi" --max-growth-mib 10 --json
has '"verdict": "FAIL"' "growing GPU memory: verdict"
has '"failures": 0' "growing GPU memory: no job failed"
grep -q '"metric": "gpu_used_mib", "series": "main: idle, within a cycle", "samples": [0-9]*, "base": [0-9.]*, "last": [0-9.]*, "max": [0-9.]*, "growth": [0-9.]*, "pass": false' "$T/out" ||
  fail "growing GPU memory: the gpu_used_mib idle series did not fail: $(cat "$T/out")"
rm -f "$T/smi.count"
# shellcheck disable=SC2086
expect 0 "growing GPU memory under a high threshold" -- "$SP" soak -c "$T/two.ini" --dir "$T/grow2" \
  $small --nvidia-smi "$T/smi" --max-growth-mib 100000 --json
has '"verdict": "PASS"' "high threshold: verdict"
has '"metric": "gpu_used_mib"' "high threshold: GPU series judged"

# text summary and usage errors
# shellcheck disable=SC2086
expect 0 "text summary" -- "$SP" soak -c "$T/two.ini" --dir "$T/text" --log 7 --inputs 2 \
  --partitions 6 --cycles 1 --segments 2 --threads 1 --burst 1 --nvidia-smi none --seed 3
has '^verdict: PASS' "text verdict"
has 'main: idle, within a cycle' "text memory table"
expect 2 "no --dir" -- "$SP" soak -c "$T/two.ini"
grep -q "missing --dir" "$T/err" || fail "no --dir: message: $(cat "$T/err")"
expect 2 "percentages over 100" -- "$SP" soak -c "$T/two.ini" --dir "$T/x" --cancel-percent 60 --bad-percent 50
grep -q "exceed 100" "$T/err" || fail "percentages: message: $(cat "$T/err")"
expect 2 "nothing to do" -- "$SP" soak -c "$T/two.ini" --dir "$T/x" --partitions 0
grep -q "nothing to do" "$T/err" || fail "nothing to do: message: $(cat "$T/err")"

# --big-urgent-after (issue 25 item 2, through the module): a 1-partition job of priority
# 100 during the first big job; its partition result and the module's timeline are
# reported (no timing asserted: the figure is the H200's, docs/PERFORMANCE.md
# "Deadlines"), and no partition of the stream started between its queued and start
# events: the first worker to free up took it
expect 0 "urgent job during the big job" -- "$SP" soak -c "$T/two.ini" --dir "$T/urg" \
  --partitions 0 --big-log 8 --big-inputs 2 --big-partitions 4 --big-job 4 \
  --big-urgent-after 1 --nvidia-smi none --seed 9 --json
has '"verdict": "PASS"' "urgent: verdict"
has '"urgent": {"priority": 100, "after_partitions_released": [1-4], "status": 0, "device": [01], "queued_to_start_ms": [0-9.]*, "run_ms": [0-9.]*, "queued_to_done_ms": [0-9.]*, "stream_run_median_ms": [0-9.]*, "start_within_one_partition": \(true\|false\), "stream_execute_median_ms": [0-9.]*, "start_within_one_execute": \(true\|false\), "timeline": {"queued_to_start_ms": [0-9.]*, "stream_starts_between": 0, "stream_verify_median_ms": [0-9.]*}}' "urgent: its result (and no stream partition started before it: the first worker to free up took it)"
expect 2 "urgent after the whole first job" -- "$SP" soak -c "$T/two.ini" --dir "$T/x" \
  --partitions 0 --big-log 8 --big-job 3 --big-urgent-after 3
grep -q "must be below the first big job" "$T/err" || fail "urgent bound: message: $(cat "$T/err")"
expect 2 "urgent without a big phase" -- "$SP" soak -c "$T/two.ini" --dir "$T/x" --big-urgent-after 1
grep -q "needs --big-log" "$T/err" || fail "urgent without big: message: $(cat "$T/err")"

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all soak plan checks passed"
exit 0
