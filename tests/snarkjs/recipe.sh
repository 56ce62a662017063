#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# recipe.sh -- docs/snarkjs.md's recipe ("From a circuit to a proof") works as written:
# the lines of its sh block run in an empty directory, except the installation of
# step 0 (apt-get, npm install, PATH), for which the test puts the pinned circom2 and
# snarkjs of tests/snarkjs/node_modules and the built sealprov on PATH. Skips (77)
# without node or those packages, as tests/snarkjs/test_snarkjs.sh does.
set -u
: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
SP="$top_builddir/tools/sealprov"
D="$top_srcdir/tests/snarkjs"
doc="$top_srcdir/docs/snarkjs.md"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }
command -v node >/dev/null 2>&1 || { echo "SKIP: node not installed"; exit 77; }
if ! test -x "$D/node_modules/.bin/snarkjs" || ! test -x "$D/node_modules/.bin/circom2"; then
  echo "SKIP: snarkjs/circom2 not installed: run (cd $D && npm ci), or dev/run test"
  exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/sp_recipe_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
mkdir "$T/bin" "$T/work"
ln -s "$(cd "$(dirname "$SP")" && pwd)/sealprov" "$T/bin/sealprov"
# the first sh block after the heading, without step 0's installation lines
awk '/^## From a circuit to a proof/ { on = 1 } on && /^```sh$/ { inb = 1; next }
     inb && /^```$/ { exit } inb' "$doc" \
  | grep -v -E '^(apt-get |npm install |export PATH=)' > "$T/recipe.sh"
grep -q '^circom2 ' "$T/recipe.sh" || { echo "FAIL: no recipe found in $doc"; exit 1; }
for l in 'apt-get install' 'npm install' 'export PATH'; do
  grep -q "^$l" "$T/recipe.sh" && { echo "FAIL: step 0 line left in: $l"; exit 1; }
done
echo "running docs/snarkjs.md's recipe ($(wc -l < "$T/recipe.sh") lines) in $T/work"
if ! (cd "$T/work" && PATH="$T/bin:$(cd "$D/node_modules/.bin" && pwd):$PATH" sh -eux "$T/recipe.sh") > "$T/out" 2>&1; then
  tail -30 "$T/out"
  echo "FAIL: recipe.sh: docs/snarkjs.md's recipe failed (its output above)"
  exit 1
fi
grep -q 'OK' "$T/out" || { tail -20 "$T/out"; echo "FAIL: recipe.sh: snarkjs did not say OK"; exit 1; }
grep -qi 'valid' "$T/out" || { tail -20 "$T/out"; echo "FAIL: recipe.sh: sealprov verify said nothing valid"; exit 1; }
tail -4 "$T/out"
echo "PASS: recipe.sh"
