#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# test_witness_cli.sh -- witness-only proving from the CLI: `sealprov setup` writes
# circuit.r1cs, `sealprov wtns` writes a partition's witness as circom .wtns, and
# `sealprov prove --r1cs` proves .wtns and .spa witnesses through the module to the same
# bytes as full-assignment proving (r = s = 0); errors name the file at fault.
set -u

: "${top_builddir:?run through make check}"
SP="$top_builddir/tools/sealprov"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/sp_wcli_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
. "$top_srcdir/tests/tools/cli_lib.sh" # fail, expect, has, lacks

cat >"$T/two.ini" <<EOF
[provider]
log_level = warn
[cpu0]
type = cpu
threads = 1
[cpu1]
type = cpu
threads = 1
EOF
export SEALPROV_CONFIG="$T/two.ini"

expect 0 "setup" -- "$SP" setup --constraints 700 --inputs 3 --partitions 3 --seed 5 --out "$T/a"
test -s "$T/a/circuit.r1cs" || fail "setup did not write circuit.r1cs"
expect 0 "setup other circuit" -- "$SP" setup --constraints 400 --inputs 2 --partitions 1 --seed 6 --out "$T/b"
# --force replaces circuit.r1cs like the other files of an earlier setup
expect 0 "setup --force" -- "$SP" setup --constraints 400 --inputs 2 --partitions 1 --seed 6 --out "$T/b" --force

for p in 00 01 02; do
  expect 0 "wtns $p" -- "$SP" wtns "$T/a/partition-$p.spa" "$T/a/w$p.wtns"
done
A="$T/a"
expect 0 "prove full" -- "$SP" prove --params "$A/circuit.params" --out "$T/full.bin" --zero-rs \
  "$A/partition-00.spa" "$A/partition-01.spa" "$A/partition-02.spa"
expect 0 "prove --r1cs .wtns" -- "$SP" prove --params "$A/circuit.params" --r1cs "$A/circuit.r1cs" \
  --out "$T/wtns.bin" --zero-rs "$A/w00.wtns" "$A/w01.wtns" "$A/w02.wtns"
has "3 proofs on" "witness-only summary"
expect 0 "prove --r1cs .spa" -- "$SP" prove --params "$A/circuit.params" --r1cs "$A/circuit.r1cs" \
  --out "$T/spa.bin" --zero-rs "$A/partition-00.spa" "$A/w01.wtns" "$A/partition-02.spa"
cmp -s "$T/full.bin" "$T/wtns.bin" || fail "witness-only (.wtns) proofs differ from full-assignment proofs"
cmp -s "$T/full.bin" "$T/spa.bin" || fail "witness-only (.spa) proofs differ from full-assignment proofs"
# with random r, s the proofs verify
expect 0 "prove --r1cs random r, s" -- "$SP" prove --params "$A/circuit.params" --r1cs "$A/circuit.r1cs" \
  --out "$T/rnd.bin" "$A/w00.wtns" "$A/w01.wtns"
expect 0 "verify witness-only proofs" -- "$SP" verify --vk "$A/circuit.vk" --proofs "$T/rnd.bin" \
  "$A/partition-00.spa" "$A/partition-01.spa"

# another circuit's witness: refused before the parameters load, naming the file and the
# sizes (from the headers: the .spa's, the .wtns's nWitness)
expect 1 "prove --r1cs wrong witness" -- "$SP" prove --params "$A/circuit.params" --r1cs "$A/circuit.r1cs" \
  --out "$T/x.bin" "$T/b/partition-00.spa"
has "$T/b/partition-00.spa does not fit the parameters $A/circuit.params: 3 inputs with ONE (inp_size), the parameters have 4 (ic)" "size mismatch named"
"$SP" wtns "$T/b/partition-00.spa" "$T/b/w.wtns" >/dev/null 2>&1 || fail "wtns b"
expect 1 "prove --r1cs wrong .wtns" -- "$SP" prove --params "$A/circuit.params" --r1cs "$A/circuit.r1cs" \
  --out "$T/x.bin" "$T/b/w.wtns"
has "$T/b/w.wtns does not fit the parameters" "wtns file named"
has "witness values (nWitness), the parameters have 4 inputs with ONE (ic) + " "wtns size message"
# the system of another circuit against these parameters
expect 1 "prove --r1cs other system" -- "$SP" prove --params "$A/circuit.params" --r1cs "$T/b/circuit.r1cs" \
  --out "$T/x.bin" "$T/b/partition-00.spa"
has "does not fit the parameters" "system/parameters mismatch"
# a truncated .r1cs, a missing one
head -c 300 "$A/circuit.r1cs" >"$T/short.r1cs"
expect 1 "prove --r1cs truncated" -- "$SP" prove --params "$A/circuit.params" --r1cs "$T/short.r1cs" \
  --out "$T/x.bin" "$A/w00.wtns"
has "$T/short.r1cs" "truncated r1cs named"
has "but the file has only 300 bytes" "truncated r1cs message"
has "not run" "no partition ran"
expect 1 "prove --r1cs missing" -- "$SP" prove --params "$A/circuit.params" --r1cs "$T/none.r1cs" \
  --out "$T/x.bin" "$A/w00.wtns"
has "$T/none.r1cs" "missing r1cs named"
has "--r1cs $T/none.r1cs: not found" "missing r1cs: not found, before any work"
# wtns usage
expect 2 "wtns usage" -- "$SP" wtns "$A/partition-00.spa"
# a write that fails (a full disk) is an error naming the file, and a cut-short .wtns
# is not left behind; a file that is not a regular one is never removed
if [ -w /dev/full ]; then
  expect 1 "wtns to a full disk" -- "$SP" wtns "$A/partition-00.spa" /dev/full
  has "/dev/full: write failed: " "wtns to a full disk: says why"
  test -c /dev/full || fail "wtns removed /dev/full"
fi

if [ "${SP_BENCHMARKS:-yes}" = yes ]; then # not built with configure --disable-benchmarks
# the bench: runs, and reports equal proofs (sizes here are tiny: no figure is checked)
expect 0 "bench witness" -- "$SP" bench witness --reps 1 --threads 2 "$A"
has '"proofs_equal": true' "bench compares the proofs"
has '"host_bytes_ratio"' "bench host memory"

# --size: the bench makes its own setup (circuit, witness in memory, .r1cs under
# --r1cs-dir, parameters under TMPDIR) and removes it afterwards
mkdir "$T/r1" "$T/tmp"
expect 0 "bench witness --size" -- env TMPDIR="$T/tmp" "$SP" bench witness --size 10 --reps 1 \
  --threads 2 --r1cs-dir "$T/r1"
has '"proofs_equal": true' "bench --size compares the proofs"
has '"made": {"size": 10' "bench --size reports its setup"
has '"log_domain": 10' "bench --size makes a 2^10 domain"
left=$(find "$T/r1" "$T/tmp" -mindepth 1)
[ -z "$left" ] || fail "bench --size left files: $left"
expect 2 "bench --size with DIR" -- "$SP" bench witness --size 10 "$T/a"
has "unexpected argument" "bench --size with DIR"
expect 2 "bench --size 28" -- "$SP" bench witness --size 28
has "size" "bench --size 28 names the option"
expect 2 "bench --r1cs-dir without --size" -- "$SP" bench witness --r1cs-dir "$T/r1" "$T/a"
has "goes with --size" "bench --r1cs-dir without --size"
expect 1 "bench --r1cs-dir missing" -- "$SP" bench witness --size 10 --r1cs-dir "$T/none"
has "$T/none" "bench --r1cs-dir missing names the directory"
fi

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "PASS"
