#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# c2_example.sh -- the C host of docs/integration.md, section 8: the program the page
# shows is docs/examples/c2_prove.c to the byte, and that program (built by make check
# against libsealprov_c2) proves a partition of a small circuit made by `sealprov setup`
# on two CPU devices, its proof file passes `sealprov verify` and fails against another
# partition's inputs; a scalar not below r in the .spa file, a partition of another
# circuit and bad usage are refused with the messages the page describes.
set -u
: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
: "${SEALPROV_PLUGIN:?SEALPROV_PLUGIN is not set (make check sets it)}"
SP="$top_builddir/tools/sealprov"
EX="$top_builddir/tests/compat/c2_prove"
doc="$top_srcdir/docs/integration.md"
src="$top_srcdir/docs/examples/c2_prove.c"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }
test -x "$EX" || { echo "SKIP: $EX not built"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/sp_c2ex_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# The page's program: the first ```c block of its section 8.
awk '/^## 8\. / { on = 1; next } on && /^## / { exit }
     on && /^```c$/ { inb = 1; next } inb && /^```$/ { exit } inb' "$doc" >"$T/shown.c"
[ -s "$T/shown.c" ] || { echo "FAIL: no \`\`\`c block in section 8 of $doc"; exit 1; }
cmp -s "$T/shown.c" "$src" ||
  { diff -u "$src" "$T/shown.c" | head -20; fail "the program in $doc is not $src"; }

cat >"$T/two.ini" <<INI
[provider]
log_level = warn
[cpu0]
type = cpu
threads = 1
[cpu1]
type = cpu
threads = 1
INI
"$SP" setup --constraints 300 --inputs 4 --partitions 2 --seed 21 --out "$T/s" >"$T/setup.out" 2>&1 &&
  "$SP" setup --constraints 200 --inputs 3 --partitions 1 --seed 22 --out "$T/o" >>"$T/setup.out" 2>&1 ||
  { cat "$T/setup.out"; echo "FAIL: sealprov setup"; exit 1; }
export SEALPROV_CONFIG="$T/two.ini"

# A proof through the library, then checked by sealprov against its partition's inputs.
"$EX" "$T/s/circuit.params" "$T/s/partition-00.spa" "$T/proof" >"$T/out" 2>&1
rc=$?
cat "$T/out"
[ "$rc" -eq 0 ] && grep -q "^proof of $T/s/partition-00.spa written to $T/proof$" "$T/out" ||
  fail "c2_prove: exit $rc"
[ "$(wc -c <"$T/proof" 2>/dev/null)" = 192 ] || fail "the proof file is not 192 bytes"
"$SP" verify --plugin "$SEALPROV_PLUGIN" --vk "$T/s/circuit.vk" --proofs "$T/proof" \
  "$T/s/partition-00.spa" >"$T/v.out" 2>&1 || { cat "$T/v.out"; fail "sealprov verify: the proof is not valid"; }
rc=0
"$SP" verify --plugin "$SEALPROV_PLUGIN" --vk "$T/s/circuit.vk" --proofs "$T/proof" \
  "$T/s/partition-01.spa" >"$T/v1.out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || { cat "$T/v1.out"; fail "the proof verified against partition 01's inputs (exit $rc)"; }

# The last aux scalar set to 2^256 - 1 (the example does not check the checksum; the
# conversion refuses the value, naming its index among a, b, c, inputs and aux).
spa=$T/s/partition-00.spa
len=$(wc -c <"$spa")
cp "$spa" "$T/big.spa"
# last aux scalar: before the three bitmaps and the checksum (docs/formats.md)
inp=$(od -An -t u8 -j 24 -N 8 "$spa" | tr -d ' ')
aux=$(od -An -t u8 -j 32 -N 8 "$spa" | tr -d ' ')
abc=$(od -An -t u8 -j 16 -N 8 "$spa" | tr -d ' ')
words=$((2 * ((aux + 63) / 64) + (inp + 63) / 64))
off=$((len - 8 - 8 * words - 32))
n=$((3 * abc + inp + aux))
head -c 32 /dev/zero | tr '\0' '\377' | dd of="$T/big.spa" bs=1 seek="$off" conv=notrunc 2>/dev/null
# refused WHAT PARAMS SPA PATTERN: c2_prove exits 1 with a line matching PATTERN (grep)
# and writes no proof file
refused() {
  rc=0
  "$EX" "$2" "$3" "$T/refused.proof" >"$T/refused.out" 2>&1 || rc=$?
  cat "$T/refused.out"
  [ "$rc" -eq 1 ] && grep -q "$4" "$T/refused.out" || fail "$1: exit $rc"
  [ -e "$T/refused.proof" ] && fail "$1: a proof file was written"
  rm -f "$T/refused.proof"
}
refused "a scalar >= r" "$T/s/circuit.params" "$T/big.spa" \
  "sealprov_c2_fr_from_canonical: scalar $((n - 1)) of $n is not below the group order r: 0xffff"
# A partition of another circuit: the proving call refuses it (ASSIGNMENT, 9).
refused "a partition of another circuit" "$T/o/circuit.params" "$spa" \
  '^prove: error 9: sealprov_c2: generate_groth16_proofs_c: '

rc=0
"$EX" "$T/s/circuit.params" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "usage: exit $rc"

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "c2_example: all checks passed"
