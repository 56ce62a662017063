#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# test_stress.sh -- `sealprov stress`: 4 host threads x 2 jobs of 3 partitions each on
# one provider with two CPU devices; every job must end OK and all 24 proofs (random
# r, s) must verify. Also its usage errors.
set -u

: "${top_builddir:?run through make check}"
SP="$top_builddir/tools/sealprov"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/sp_stress_XXXXXX") || exit 1
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
    sed 's/^/    /' "$T/out" "$T/err"
  fi
}
has() { grep -q -- "$1" "$T/out" "$T/err" || { fail "$2: output lacks '$1'"; sed 's/^/    /' "$T/out" "$T/err"; }; }

cat >"$T/two.ini" <<EOF2
[provider]
log_level = warn
[cpu0]
type = cpu
threads = 1
[cpu1]
type = cpu
threads = 1
EOF2

expect 0 "setup" -- "$SP" setup --constraints 2^10 --inputs 3 --partitions 3 --seed 11 --out "$T/a"
P="$T/a/partition-00.spa $T/a/partition-01.spa $T/a/partition-02.spa"

# shellcheck disable=SC2086
expect 0 "stress 4 threads x 2 jobs" -- "$SP" stress -c "$T/two.ini" --params "$T/a/circuit.params" \
  --threads 4 --jobs-per-thread 2 --json $P
# the summary's keys, in the order the command writes them (per-thread entries differ)
has '"jobs": 8, "partitions": 24, "jobs_ok": 8, "failed": 0, "valid": 24, "invalid": 0' "stress summary"
has '"failed_statuses": {}' "stress failed statuses"
has '"mode": "batch"' "stress batch threads"
has '"mode": "submit-wait"' "stress submit-wait threads"
test "$(grep -o '"valid": 6, "invalid": 0' "$T/out" | wc -l)" -eq 4 || {
  fail "not every thread got 6 valid proofs"; sed 's/^/    /' "$T/out"; }

# text output, one thread
expect 0 "stress text" -- "$SP" stress -c "$T/two.ini" --params "$T/a/circuit.params" \
  --threads 1 --jobs-per-thread 1 "$T/a/partition-01.spa"
has "1 of 1 proofs valid, 0 invalid" "stress text summary"

# usage errors
# shellcheck disable=SC2086
expect 2 "stress without --params" -- "$SP" stress -c "$T/two.ini" $P
has "missing --params" "stress usage error"
# shellcheck disable=SC2086
expect 2 "stress 0 threads" -- "$SP" stress -c "$T/two.ini" --params "$T/a/circuit.params" --threads 0 $P
has "at least 1" "stress thread count error"
# shellcheck disable=SC2086
expect 2 "stress bad number" -- "$SP" stress -c "$T/two.ini" --params "$T/a/circuit.params" --jobs-per-thread x $P
has '"x" is not a number' "stress number error"

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all stress checks passed"
exit 0
