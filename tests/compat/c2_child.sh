#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# c2_child.sh -- dev/ffiselect-child.sh (each proof type as a whole child of Curio's
# default path) dry-run on a CPU device at tiny sizes: two circuits, the first with its
# witness in a file, the second made in each child; every proof of both children
# (first: validated load, repeat: the record used) verifies, each run's JSON has the
# fields the table is made of, the table has a row per circuit, only one circuit's files
# are kept at a time, a second call resumes (measures nothing again), and the proof
# types of bench/shapes.c resolve to the kit's sizes. No timing is asserted.
set -u
: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
: "${SEALPROV_PLUGIN:?SEALPROV_PLUGIN is not set (make check sets it)}"
CHILD="$top_builddir/tests/compat/c2_child"
test -x "$CHILD" || { echo "SKIP: $CHILD not built"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/sp_c2child_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# a proof type as the kit's sizes: PoRep's constraints plus one per input, 327 inputs
# besides ONE, 10 partitions, 2^27
line=$("$CHILD" shape porep-32g)
[ "$line" = "porep-32g 130279197 327 10 27" ] || fail "shape porep-32g: \"$line\""
"$CHILD" shape nothing-32g >"$T/bad.out" 2>&1 && fail "an unknown shape was accepted"
grep -q 'shape "nothing-32g": neither a proof type (porep-32g, ' "$T/bad.out" ||
  fail "unknown shape: $(cat "$T/bad.out")"

script() { # OUTDIR SHAPES [VAR=VALUE...]: the script on one CPU device
  o=$1 s=$2
  shift 2
  env BUILD="$top_builddir" DEVICE=cpu THREADS=1 DIR="$T/dir" WDIR="$T/wit" "$@" \
    sh "$top_srcdir/dev/ffiselect-child.sh" "$o" "$s" >"$o.log" 2>&1
}
script "$T/o1" 300:4:2 || { cat "$T/o1.log"; fail "the script failed (file witness)"; }
for f in dir/c300-i4.params dir/c300-i4.vk wit/c300-i4.wit; do
  [ -s "$T/$f" ] || fail "no $f after the first circuit"
done
script "$T/o2" 200:3:1 WITNESS=memory || { cat "$T/o2.log"; fail "the script failed (memory witness)"; }
[ -e "$T/dir/c300-i4.params" ] || [ -e "$T/wit/c300-i4.wit" ] &&
  fail "the first circuit's files were kept beside the second's"

for r in 300:4:2.first 300:4:2.repeat 200:3:1.first 200:3:1.repeat; do
  j=$T/dir/results/$r.json
  [ -s "$j" ] || { fail "no $j"; continue; }
  for k in t_exec t_main t_ready t_last t_exit create_SRS_s prove_s drop_SRS_s verify_s \
    peak_rss_bytes rss_before_bytes witness_bytes; do
    grep -q "\"$k\": [0-9]" "$j" || fail "$r: no $k in $(cat "$j")"
  done
  p=${r%%.*}
  p=${p##*:}
  grep -q "\"partitions\": $p, .*\"verified\": $p," "$j" || fail "$r: not $p of $p verified: $(cat "$j")"
done
grep -q '"witness": "file"' "$T/dir/results/300:4:2.first.json" || fail "300:4:2: witness not from the file"
grep -q '"witness": "memory"' "$T/dir/results/200:3:1.repeat.json" || fail "200:3:1: witness not made in memory"
grep -q '^| 200:3:1 | 1 | 200 (2^8), 3 inputs | .* GB | [0-9.]* / [0-9.]* s | .* s (.* s) | .* s (.* s) | .* GB / .* GB | 1 of 1 | one in memory' \
  "$T/o2/table.md" || { cat "$T/o2/table.md"; fail "the table has no row of 200:3:1"; }

# the same call again: every type measured already, the table made from the results
script "$T/o3" 300:4:2,200:3:1 || { cat "$T/o3.log"; fail "the resumed call failed"; }
grep -q "300:4:2: measured already" "$T/o3.log" || fail "the second call measured 300:4:2 again"
[ "$(grep -c '^| [0-9]*:' "$T/o3/table.md")" = 2 ] || { cat "$T/o3/table.md"; fail "not two rows"; }

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "c2_child: all checks passed"
