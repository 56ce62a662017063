#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# bench_gpu_shape.sh -- `sealprov bench gpu --shape`'s option on a machine without a
# GPU: an unknown proof type is a usage error naming the value and the valid names;
# a known one is parsed, then refused because no GPU is there (a build without CUDA
# refuses the command itself, naming --with-cuda). Where a GPU is visible the run
# itself takes minutes, so that part is skipped (dev/proof-types.sh runs it).
set -u

: "${top_builddir:?run through make check}"
SP="$top_builddir/tools/sealprov"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/sp_shape_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
has() { grep -q -- "$1" "$T/err" || { fail "$2: stderr lacks '$1'"; sed 's/^/    /' "$T/err"; }; }

"$SP" bench gpu --shape bogus,porep-32g >"$T/out" 2>"$T/err"
rc=$?
if ! "$SP" help | grep -q '^  bench gpu '; then
  [ "$rc" -eq 2 ] || fail "without CUDA: exit $rc, expected 2"
  has "'bench gpu' needs a build with CUDA" "without CUDA"
  has "--with-cuda" "without CUDA"
else
  [ "$rc" -eq 2 ] || fail "unknown shape: exit $rc, expected 2"
  has '--shape "bogus": unknown proof type (valid: all, porep-32g, porep-64g, snap-32g' "unknown shape"
  has "ni-porep-32g)" "unknown shape: the whole list"
  "$SP" bench gpu --shape snap-32g,snap-32g >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" -eq 2 ] || fail "a shape twice: exit $rc, expected 2"
  has '--shape "snap-32g": named twice' "a shape twice"
  "$SP" bench gpu --shape porep-32g --shape-partitions 0 >"$T/out" 2>"$T/err"
  [ $? -eq 2 ] || fail "--shape-partitions 0: not a usage error"
  "$SP" help bench gpu >"$T/err" 2>&1
  has "--shape NAME" "help"
  has "winning-post-32g" "help: the names"
  if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    "$SP" bench gpu --shape winning-post-32g --json >"$T/out" 2>"$T/err"
    rc=$?
    [ "$rc" -eq 1 ] || fail "no GPU: exit $rc, expected 1"
    has "no CUDA device 0 (0 visible)" "no GPU"
  fi
fi
[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "bench gpu --shape: all checks passed"
