#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# bench_gpu_trace.sh -- `sealprov bench gpu --trace FILE` on a machine without a GPU: a
# file that cannot be written is a usage error naming it and the reason; the option
# is in the help; a writable one is taken, then the run is refused because no GPU is
# there (a build without CUDA refuses the command itself). Where a GPU is visible the
# traced run takes minutes (dev/profile-partition.sh runs it); the tables it prints are
# tests/bench/test_trace_stats's.
set -u

: "${top_builddir:?run through make check}"
SP="$top_builddir/tools/sealprov"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }
"$SP" help | grep -q '^  bench gpu ' || { echo "SKIP: no bench gpu in this build (no CUDA)"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/sp_trace_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
has() { grep -q -- "$1" "$T/err" || { fail "$2: stderr lacks '$1'"; sed 's/^/    /' "$T/err"; }; }

"$SP" bench gpu --trace "$T/no/such/dir/t.csv" --partition 10 >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] || fail "unwritable file: exit $rc, expected 2"
has "--trace $T/no/such/dir/t.csv: cannot write the file: No such file or directory" "unwritable file"
"$SP" bench gpu --partition 10 --trace >"$T/out" 2>"$T/err"
[ $? -eq 2 ] || fail "--trace without a file: not a usage error"
"$SP" help bench gpu >"$T/err" 2>&1
has "--trace FILE" "help"
has "libcupti" "help: where CUPTI comes from"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  "$SP" bench gpu --trace "$T/t.csv" --partition 10 >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" -eq 1 ] || fail "no GPU: exit $rc, expected 1"
  has "no CUDA device 0 (0 visible)" "no GPU"
  # the GPU machine's script: its command and the bench's refusal come through
  BUILD=$top_builddir sh "${top_srcdir:-.}/dev/profile-partition.sh" "$T/prof" >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" -eq 1 ] || fail "dev/profile-partition.sh without a GPU: exit $rc, expected 1"
  has "no CUDA device 0 (0 visible)" "dev/profile-partition.sh without a GPU"
  grep -q -- "bench gpu --device 0 .* --partition 27 --repeat 1 --trace $T/prof/trace.csv --throughput 27" \
    "$T/prof/profile.txt" || fail "dev/profile-partition.sh: its command is not in profile.txt"
fi
[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "bench gpu --trace: all checks passed"
