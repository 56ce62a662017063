#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# test_bench_load.sh -- the output of `sealprov bench load` on a small file: a JSON
# object per mode, each on its own line as soon as it is measured, the modes chosen by
# --modes (or the default), warm runs as asked, cold loads by --cold / --no-cold,
# progress notes on stderr under --progress, and its usage errors. Timings are not
# judged (they belong to benchmarks). No GPU in CI: --modes direct must fail cleanly
# there (where a GPU is visible it runs instead).
set -u

: "${top_builddir:?run through make check}"
SP="$top_builddir/tools/sealprov"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/sp_bench_load_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# run CODE DESCRIPTION -- CMD...: stdout in $T/out, stderr in $T/err
run() {
  want=$1; what=$2; shift 3
  "$@" >"$T/out" 2>"$T/err"
  got=$?
  if [ "$got" -ne "$want" ]; then
    fail "$what: exit $got, expected $want"
    sed 's/^/    out: /' "$T/out"
    sed 's/^/    err: /' "$T/err"
  fi
}
has() { grep -q -- "$2" "$T/$1" || { fail "$3: $1 lacks '$2'"; sed 's/^/    /' "$T/$1"; }; }
count() { grep -c -- "$2" "$T/$1"; }
json_ok() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" ||
      fail "$1: stdout is not valid JSON"
  fi
}

"$SP" setup --constraints 500 --inputs 3 --partitions 1 --seed 7 --out "$T/s" >/dev/null 2>&1 ||
  { echo "FAIL: setup"; exit 1; }
P="$T/s/circuit.params"

# the default on a small file: every mode there is (no direct without a GPU), cold loads
run 0 "bench load --json" -- "$SP" --progress bench load --json --repeat 2 --threads 2 "$P"
json_ok "default modes"
if grep -q '"gpu": false' "$T/out"; then
  [ "$(count out '^{"file": ')" -eq 2 ] || fail "default modes: $(count out '^{"file": ') result lines, want 2"
else
  [ "$(count out '^{"file": ')" -eq 3 ] || fail "default modes with a GPU: want 3 result lines"
  has out '"mode": "direct_gpu"' "default modes with a GPU"
fi
has out '"mode": "checked", ' "default modes"
has out '"mode": "on_curve_only", ' "default modes"
has out '"warm_runs_s": \[[0-9.]*, [0-9.]*\]' "two warm runs"
has out '"cold": "' "cold method or reason"
has out '"points": ' "points"
has err "read once in" "the warm-up read is noted"
if grep -q '"gpu": false' "$T/out"; then
  has err "checked (mode 1 of 2), load 1 of 3: " "a note per load"
else
  has err "direct_gpu (mode 1 of 3), load 1 of 3: " "a note per load"
  has err "checked (mode 2 of 3), load 1 of 3: " "a note per load"
fi
has err "load 3 of 3 (cold)" "the cold load is noted"

# one mode, no cold load, text output, no progress
run 0 "bench load --modes on-curve --no-cold" -- "$SP" --no-progress bench load --modes on-curve --no-cold --repeat 1 "$P"
has out "on_curve_only" "text: the mode's line"
[ "$(count out 'checked ')" -eq 0 ] || fail "--modes on-curve also ran checked"
[ -s "$T/err" ] && { fail "--no-progress: stderr not empty"; sed 's/^/    /' "$T/err"; }
run 0 "bench load --modes on_curve_only,checked --json --no-cold" -- "$SP" bench load --json --no-cold --repeat 1 --modes on_curve_only,checked "$P"
json_ok "two modes"
has out '"cold": "not measured"' "--no-cold"
# measured in the fixed order (checked first), whatever the order given
first_mode=$(grep -o '"mode": "[a-z_]*"' "$T/out" | head -1)
[ "$first_mode" = '"mode": "checked"' ] || fail "modes out of order: first is $first_mode"

# direct: a CUDA build that sees a GPU runs it, anything else refuses it
run_direct_rc=0
"$SP" bench load --json --no-cold --repeat 1 --modes direct "$P" >"$T/out" 2>"$T/err" || run_direct_rc=$?
if [ "$run_direct_rc" -eq 0 ]; then
  has out '"mode": "direct_gpu"' "--modes direct with a GPU"
else
  [ "$run_direct_rc" -eq 1 ] || fail "--modes direct without a GPU: exit $run_direct_rc, want 1"
  has err "needs a CUDA build that sees a GPU" "--modes direct without a GPU"
fi

# usage errors
run 2 "unknown mode" -- "$SP" bench load --modes fast "$P"
has err 'unknown mode "fast"' "unknown mode"
run 2 "empty --modes" -- "$SP" bench load --modes , "$P"
has err "no mode given" "empty --modes"
run 2 "--repeat 0" -- "$SP" bench load --repeat 0 "$P"
run 2 "file and --sizes" -- "$SP" bench load --sizes 8 "$P"
run 1 "missing file" -- "$SP" bench load "$T/none.params"

[ "$fails" -eq 0 ] && echo "test_bench_load: ok" || echo "test_bench_load: $fails failure(s)"
[ "$fails" -eq 0 ]
