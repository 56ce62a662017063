#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# seeds.sh [-n N | -s "S1 S2 ..."] [-l LOGDIR] PROGRAM [ARGS...] -- runs one GPU test
# program (tests/cuda: test_cuda_engine, test_cuda_checks, test_cuda_kernels,
# test_cuda_load) once per seed, with SP_TEST_SEED set. A test whose inputs come from
# the seed can pass for most seeds and fail for a few (issue 22 item 9: an injected
# a*b != c row that some seeds' bit-shaped rows satisfied by chance), so one run per
# session is not enough.
#   -s LIST  the seeds (decimal or 0x hex), e.g. to repeat a failing one
#   -n N     N seeds (default 3) drawn from the clock and the process id; printed
#   -l DIR   each run's output in DIR/NAME-seed-S.log (else a temporary file, printed
#            when the run fails)
# One line per seed on stdout: "NAME seed S: PASS|FAIL|SKIP (rc R, T s) <checks line>".
# Exit status: 0 every run passed, 77 the program skipped (no GPU), 1 otherwise.
# `make check-gpu-seeds` runs it for every GPU suite (tests/cuda/local.mk).
set -u
n=3
list=
logdir=
while [ $# -gt 0 ]; do
  case $1 in
    -n) n=${2:?-n needs a count}; shift 2 ;;
    -s) list=${2:?-s needs a list}; shift 2 ;;
    -l) logdir=${2:?-l needs a directory}; shift 2 ;;
    --) shift; break ;;
    -*) echo "seeds.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
prog=$1
shift
name=$(basename "$prog")
case $n in '' | *[!0-9]*) echo "seeds.sh: -n \"$n\": not a count" >&2; exit 2 ;; esac
if [ -z "$list" ]; then
  base=$(( $(date +%s) ^ ($$ << 16) ))
  i=0
  while [ "$i" -lt "$n" ]; do
    list="$list $((base + i * 7919))"
    i=$((i + 1))
  done
fi
if [ -n "$logdir" ]; then
  mkdir -p "$logdir" || exit 1
  tmp=
else
  tmp=$(mktemp "${TMPDIR:-/tmp}/sp_seeds_XXXXXX") || exit 1
  trap 'rm -f "$tmp"' EXIT INT TERM
fi
fails=0
runs=0
for s in $list; do
  log=${tmp:-$logdir/$name-seed-$s.log}
  t0=$(date +%s)
  SP_TEST_SEED=$s "$prog" "$@" >"$log" 2>&1
  rc=$?
  t=$(( $(date +%s) - t0 ))
  summary=$(grep -E 'checks, [0-9]+ failures|^SKIP' "$log" | tail -1)
  case $rc in
    0) verdict=PASS ;;
    77) verdict=SKIP ;;
    *) verdict=FAIL ;;
  esac
  echo "$name seed $s: $verdict (rc $rc, $t s) $summary"
  if [ "$rc" -eq 77 ]; then
    [ "$runs" -eq 0 ] && exit 77
    fails=$((fails + 1)) # a GPU that went away between runs is a failure
    continue
  fi
  runs=$((runs + 1))
  if [ "$rc" -ne 0 ]; then
    fails=$((fails + 1))
    grep -E '^FAIL|^seed ' "$log" | head -20 | sed 's/^/    /'
  fi
done
[ "$fails" -eq 0 ] || exit 1
exit 0
