#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# test_cli.sh -- the Groth16 commands of the `sealprov` CLI: setup, prove (through the
# module on two CPU devices), verify, demo; their exit codes and error messages on bad
# input; and, when node and @noble/curves are installed, the independent verifier on
# the CLI's proof file.
set -u

: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
SP="$top_builddir/tools/sealprov"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/sp_cli_XXXXXX") || exit 1
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

# ---- setup -------------------------------------------------------------------------
expect 0 "setup" -- "$SP" setup --constraints 500 --inputs 3 --partitions 4 --seed 7 --out "$T/a"
has "INSECURE" "setup warns"
has "500 constraints (domain 2^9)" "setup summary"
has "4 partition files (partition-00.spa to partition-03.spa)" "setup names the range of files it wrote"
for f in circuit.params circuit.vk partition-00.spa partition-03.spa; do
  test -s "$T/a/$f" || fail "setup did not write $f"
done
expect 0 "setup other seed" -- "$SP" setup --constraints 500 --inputs 3 --partitions 1 --seed 8 --out "$T/b"
expect 0 "setup random shape" -- "$SP" setup --constraints 300 --inputs 3 --partitions 1 --shape random --seed 9 --out "$T/c" --json
has '"shape": "random"' "setup --json"
expect 2 "setup without --out" -- "$SP" setup --constraints 500 --inputs 3 --partitions 1
has "missing --out" "setup usage error"
expect 2 "setup bad number" -- "$SP" setup --constraints 12x --inputs 3 --partitions 1 --out "$T/x"
has '"12x" is not a number' "setup number error"
expect 1 "setup too small" -- "$SP" setup --constraints 20 --inputs 8 --partitions 1 --out "$T/x"
has "too small for 8 inputs" "setup size error"
# An existing directory with files in it: refused unless --force, which replaces the
# files of the earlier setup (a stale partition-03.spa must not stay next to 2 new ones).
expect 1 "setup into a non-empty directory" -- "$SP" setup --constraints 500 --inputs 3 --partitions 2 --seed 7 --out "$T/a"
has "sealprov setup: error: --out $T/a: the directory is not empty" "setup refusal"
has "or --force" "setup refusal names --force"
cp -r "$T/a" "$T/f"
echo keep >"$T/f/notes.txt"
expect 0 "setup --force" -- "$SP" setup --constraints 300 --inputs 3 --partitions 2 --seed 5 --out "$T/f" --force
has "warning: --force: removed [0-9]* files of an earlier setup" "setup --force says what it removed"
test -e "$T/f/partition-03.spa" && fail "setup --force left a stale partition file"
test -s "$T/f/partition-01.spa" && test -s "$T/f/notes.txt" || fail "setup --force: new files, other files kept"
mkdir "$T/empty"
expect 0 "setup into an empty directory" -- "$SP" setup --constraints 300 --inputs 3 --partitions 1 --seed 5 --out "$T/empty"
: >"$T/plainfile"
expect 1 "setup --out a file" -- "$SP" setup --constraints 300 --inputs 3 --partitions 1 --out "$T/plainfile" --force
has "exists and is not a directory" "setup --out file"

# ---- inspect -----------------------------------------------------------------------
head -c 1000 "$T/a/partition-01.spa" >"$T/trunc.spa"
head -c 5000 "$T/a/circuit.params" >"$T/trunc.params"
expect 0 "inspect" -- "$SP" inspect "$T/a/partition-00.spa" "$T/a/circuit.params" "$T/a/circuit.vk"
has "partition assignment (.spa version 1)" "inspect .spa kind"
has "constraints   500 " "inspect .spa constraints"
has "inputs        4 (ONE and 3 public)" "inspect .spa inputs"
has "^       0  0x1$" "inspect .spa: input 0 is ONE"
has "Groth16 parameters (.params)" "inspect .params kind"
has "domain        512 (2^9; h_len 511)" "inspect .params domain"
has "Groth16 verifying key (.vk)" "inspect .vk kind"
expect 0 "inspect --json" -- "$SP" inspect --json --check "$T/a/partition-00.spa" "$T/a/circuit.vk"
has '"kind": "spa"' "inspect --json spa"
has '"inp_size": 4' "inspect --json inp_size"
has '"public_inputs": \["0x1", "0x' "inspect --json inputs"
has '"kind": "vk"' "inspect --json vk"
has '"check": "ok"' "inspect --check"
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["files"])==2 and len(d["files"][0]["public_inputs"])==4' "$T/out" \
    || fail "inspect --json is not the JSON expected"
fi
expect 1 "inspect truncated" -- "$SP" inspect --json "$T/trunc.params" "$T/a/circuit.vk"
has '"file": "'"$T"'/trunc.params", "error": ".*vector h: length 511' "inspect names the vector"
has '"kind": "vk"' "inspect goes on after a bad file"
expect 1 "inspect truncated .spa" -- "$SP" inspect "$T/trunc.spa"
has "do not add up to the file length 1000 bytes" "inspect .spa size check"
expect 2 "inspect missing file" -- "$SP" inspect "$T/none.spa"
has "sealprov inspect: error: $T/none.spa: cannot open" "inspect missing file message"

# ---- prove -------------------------------------------------------------------------
P="$T/a/partition-00.spa $T/a/partition-01.spa $T/a/partition-02.spa $T/a/partition-03.spa"
# shellcheck disable=SC2086
expect 0 "prove" -- "$SP" prove -c "$T/two.ini" --params "$T/a/circuit.params" --out "$T/a.proofs" $P
has "4 proofs on" "prove summary"
test "$(wc -c <"$T/a.proofs")" -eq 768 || fail "proof file is not 4 x 192 bytes"
# shellcheck disable=SC2086
expect 0 "prove --json --zero-rs" -- "$SP" prove -c "$T/two.ini" --params "$T/a/circuit.params" --out "$T/z1.proofs" --zero-rs --json $P
has '"status": "ok"' "prove --json"
has '"device_name": "cpu' "prove --json devices"
# shellcheck disable=SC2086
expect 0 "prove --zero-rs again" -- "$SP" prove -c "$T/two.ini" --params "$T/a/circuit.params" --out "$T/z2.proofs" --zero-rs $P
cmp -s "$T/z1.proofs" "$T/z2.proofs" || fail "r = s = 0 proofs differ between runs"
cmp -s "$T/a.proofs" "$T/z1.proofs" && fail "random r, s gave the deterministic proof"

head -c 1000 "$T/a/partition-01.spa" >"$T/trunc.spa"
expect 2 "prove truncated partition" -- "$SP" prove -c "$T/two.ini" --params "$T/a/circuit.params" --out "$T/x.proofs" "$T/a/partition-00.spa" "$T/trunc.spa"
has "trunc.spa: sizes in the header" "prove names the bad partition file"
# A partition of another circuit: said from the headers, before the parameters load, in
# words of files ("aux variables"), with the file at fault named.
expect 1 "prove partition of another circuit" -- "$SP" --progress prove -c "$T/two.ini" --params "$T/c/circuit.params" --out "$T/x.proofs" "$T/a/partition-00.spa"
has "error: assignment: $T/a/partition-00.spa does not fit the parameters $T/c/circuit.params: 517 aux variables (aux_size), the parameters have [0-9]* (l); a partition of another circuit?" "prove size mismatch message"
lacks "loading the parameters" "prove size mismatch: before the load"
lacks "opening the devices" "prove size mismatch: before opening the devices"
test -e "$T/x.proofs" && fail "a failed prove wrote a proof file"
head -c 5000 "$T/a/circuit.params" >"$T/trunc.params"
expect 1 "prove truncated params" -- "$SP" prove -c "$T/two.ini" --params "$T/trunc.params" --out "$T/x.proofs" "$T/a/partition-00.spa"
has "truncated" "prove params error"
# Parameters that do not load: no partition is called ok, and no table of them at all.
has "no proofs: the parameters $T/trunc.params did not load" "prove: what happened"
grep -q ' ok ' "$T/out" && fail "prove called a partition ok although the parameters did not load"
has "^sealprov prove: error: parameters: " "prove: error prefix"
expect 1 "prove --json truncated params" -- "$SP" prove -c "$T/two.ini" --params "$T/trunc.params" --out "$T/x.proofs" --json "$T/a/partition-00.spa" "$T/a/partition-01.spa"
has '"status": "parameters", "written": false' "prove --json: job status"
test "$(grep -o '"status": "not run"' "$T/out" | wc -l)" -eq 2 || fail "prove --json: both partitions 'not run'"
grep -q '"status": "ok"' "$T/out" && fail "prove --json called a partition ok"
# A partition that does not fit the parameters: the table says what each one is.
expect 1 "prove mismatched table" -- "$SP" prove -c "$T/two.ini" --params "$T/c/circuit.params" --out "$T/x.proofs" "$T/a/partition-00.spa" "$T/a/partition-01.spa"
grep -Eq '^[01] +ok ' "$T/out" && fail "prove called a partition of a failed job ok"
# Outputs are checked before any work: a missing directory, a directory as the file.
expect 2 "prove --out in a missing directory" -- "$SP" prove -c "$T/two.ini" --params "$T/a/circuit.params" --out "$T/nodir/p.proofs" "$T/a/partition-00.spa"
has "sealprov prove: error: --out $T/nodir/p.proofs: the directory $T/nodir does not exist" "prove --out message"
grep -q 'loading\|proofs on' "$T/out" && fail "prove worked before refusing its --out"
expect 2 "prove --out a directory" -- "$SP" prove -c "$T/two.ini" --params "$T/a/circuit.params" --out "$T/a" "$T/a/partition-00.spa"
has "is a directory" "prove --out directory message"
expect 2 "prove SEALPROV_TIMELINE in a missing directory" -- env SEALPROV_TIMELINE="$T/nodir/t.txt" "$SP" prove -c "$T/two.ini" --params "$T/a/circuit.params" --out "$T/x.proofs" "$T/a/partition-00.spa"
has "SEALPROV_TIMELINE $T/nodir/t.txt: the directory $T/nodir does not exist" "prove timeline check"
test -e "$T/x.proofs" && fail "a refused prove wrote a proof file"
if [ "$(id -u)" -ne 0 ]; then # root may write anything: only checkable as a user
  : >"$T/ro.proofs"; chmod 444 "$T/ro.proofs"
  expect 2 "prove --out an unwritable file" -- "$SP" prove -c "$T/two.ini" --params "$T/a/circuit.params" --out "$T/ro.proofs" "$T/a/partition-00.spa"
  has "the file exists and is not writable" "prove --out unwritable message"
  mkdir "$T/rodir"; chmod 555 "$T/rodir"
  expect 2 "prove --out in an unwritable directory" -- "$SP" prove -c "$T/two.ini" --params "$T/a/circuit.params" --out "$T/rodir/p.proofs" "$T/a/partition-00.spa"
  has "cannot create files in $T/rodir" "prove --out unwritable directory message"
  chmod 755 "$T/rodir"
fi
# Progress: a line per stage with --progress (as on a terminal), none otherwise.
expect 0 "prove --progress" -- "$SP" --progress prove -c "$T/two.ini" --params "$T/a/circuit.params" --out "$T/p.proofs" "$T/a/partition-00.spa"
for stage in "reading 1 partition file" "opening the devices of" "loading the parameters" \
  "parameters loaded in" "proving 1 partition" "proving: done" "writing $T/p.proofs"; do
  has "^sealprov prove: $stage" "progress line '$stage'"
done
# the module's parameter load, a percentage and an ETA, as the command's own lines; the
# sizes in the unit the file's size needs (188,376 bytes: KB), each line once
has "^sealprov prove: loading the parameters: *[0-9]* % ([0-9.]* of 188.4 KB, vector [a-z_0-9]*), [0-9.]* s" "load progress"
has "^sealprov prove: loading the parameters: 100 % (188.4 of 188.4 KB, vector b_g2)" "load progress: the end"
[ "$(grep -c 'loading the parameters: 100 %' "$T/out")" -eq 1 ] || fail "load progress: the 100 % line is not said once"
[ "$(sort "$T/out" | uniq -d | wc -l)" -eq 0 ] || fail "prove --progress: a line said twice"
grep -q '^sealprov: \[module info\]' "$T/out" && fail "--progress shows the module's INFO lines"
# under -v the module's own lines instead
expect 0 "prove -v --progress" -- "$SP" -v --progress prove -c "$T/two.ini" --params "$T/a/circuit.params" --out "$T/p.proofs" "$T/a/partition-00.spa"
has "^sealprov: \[module info\] srs_load " "-v: the module's load lines"
# a setup and a benchmark show where they are too
expect 0 "setup --progress" -- "$SP" --progress setup --constraints 300 --inputs 3 --partitions 2 --seed 5 --out "$T/sp"
has "^sealprov setup: the parameters' points: 100 % ([0-9]* of [0-9]* G1 products)" "setup progress"
has "^sealprov setup: the partition files: 100 % (2 of 2 files)" "setup progress: partition files"
expect 0 "setup --progress, one partition" -- "$SP" --progress setup --constraints 300 --inputs 3 --partitions 1 --seed 5 --out "$T/sp1"
has "^sealprov setup: the partition files: 100 % (1 of 1 file)" "setup progress: one partition file"
has "1 partition file (partition-00.spa)" "setup: one partition file named"
if [ "${SP_BENCHMARKS:-yes}" = yes ]; then # not built with configure --disable-benchmarks
expect 0 "bench --progress" -- "$SP" --progress bench --sizes 6 --repeat 2
has "^sealprov bench: 2^6: 100 % (5 of 5 steps)" "bench progress"
expect 0 "bench cpu --progress" -- "$SP" bench cpu --quick --repeat 1 --threads 1 --progress
has "^sealprov bench cpu: 100 % (8 of 8 figures)" "bench cpu progress"
lacks "bench cpu: bench cpu" "bench cpu progress: the command named once"
# --json where the usage shows it: bench cpu prints JSON, and takes --json
expect 0 "bench cpu --json" -- "$SP" bench cpu --quick --repeat 1 --threads 1 --json
has '"benchmark": "cpu"' "bench cpu --json"
fi
expect 0 "prove without a terminal" -- "$SP" prove -c "$T/two.ini" --params "$T/a/circuit.params" --out "$T/p.proofs" "$T/a/partition-00.spa"
grep -q '^sealprov prove: ' "$T/out" && fail "progress lines without a terminal"
if command -v script >/dev/null 2>&1; then
  # a real terminal (a pty from script(1)): progress by default
  script -qec "\"$SP\" prove -c \"$T/two.ini\" --params \"$T/a/circuit.params\" --out \"$T/p.proofs\" \"$T/a/partition-00.spa\"" /dev/null >"$T/out" 2>&1
  if grep -q "failed to create pseudo-terminal" "$T/out"; then
    echo "skipped: progress on a terminal (no pseudo-terminal here: /dev/pts not mounted)"
  else
    has "sealprov prove: loading the parameters" "progress on a terminal"
  fi
fi

# A partition of another circuit of the same sizes: the module retries it on the other
# device and ends it with ASSIGNMENT, and the failure is said once, by the CLI with the
# file's name, not again by the module's WARN lines about the same job (issue 25).
"$SP" setup --constraints 128 --inputs 2 --partitions 1 --seed 1 --out "$T/t1" >/dev/null 2>&1
"$SP" setup --constraints 128 --inputs 2 --partitions 1 --seed 3475 --out "$T/t2" >/dev/null 2>&1
sz() { "$SP" inspect --json "$1" | sed 's/"public_inputs".*//; s/"file": "[^"]*", //; s/"bytes": [0-9]*, //'; }
if [ "$(sz "$T/t1/partition-00.spa")" = "$(sz "$T/t2/partition-00.spa")" ]; then
  expect 1 "prove a partition of a twin circuit" -- "$SP" prove -c "$T/two.ini" --params "$T/t2/circuit.params" --out "$T/x.proofs" "$T/t1/partition-00.spa"
  has "failed the self-check 2 times" "twin circuit: the reason"
  [ "$(grep -c 'failed the self-check 2 times' "$T/out")" -eq 1 ] || fail "twin circuit: the failure is said more than once"
  has "^sealprov prove: error: assignment: .*; partition 0 is $T/t1/partition-00.spa" "twin circuit: the error line"
else
  echo "note: setups 1 and 3475 of 128 constraints are no longer twins: the once-only check is skipped"
fi

# ---- verify ------------------------------------------------------------------------
# shellcheck disable=SC2086
expect 0 "verify" -- "$SP" verify --vk "$T/a/circuit.vk" --proofs "$T/a.proofs" $P
has "4 of 4 proofs verify" "verify summary"
# inputs of other partitions: proofs 0 and 1 swapped
expect 1 "verify swapped inputs" -- "$SP" verify --vk "$T/a/circuit.vk" --proofs "$T/a.proofs" "$T/a/partition-01.spa" "$T/a/partition-00.spa" "$T/a/partition-02.spa" "$T/a/partition-03.spa"
has "proof 0  invalid" "verify names proof 0"
has "proof 1  invalid" "verify names proof 1"
has "2 of 4 proofs verify" "verify count"
# shellcheck disable=SC2086
expect 1 "verify with another key" -- "$SP" verify --vk "$T/b/circuit.vk" --proofs "$T/a.proofs" $P
has "0 of 4 proofs verify" "verify wrong key"
# one bit of proof 2 flipped (its C point)
cp "$T/a.proofs" "$T/bad.proofs"
off=$((2 * 192 + 150))
byte=$(od -An -tu1 -j "$off" -N1 "$T/a.proofs" | tr -d ' ')
# shellcheck disable=SC2059
printf "\\$(printf %03o $((byte ^ 1)))" | dd of="$T/bad.proofs" bs=1 seek="$off" conv=notrunc 2>/dev/null
cmp -s "$T/a.proofs" "$T/bad.proofs" && fail "tampering did not change the proof file"
# shellcheck disable=SC2086
expect 1 "verify tampered" -- "$SP" verify --vk "$T/a/circuit.vk" --proofs "$T/bad.proofs" $P --json
has '"result": "invalid"' "verify --json"
has '"valid": 3' "verify --json count"
head -c 700 "$T/a.proofs" >"$T/short.proofs"
# shellcheck disable=SC2086
expect 2 "verify short proof file" -- "$SP" verify --vk "$T/a/circuit.vk" --proofs "$T/short.proofs" $P
has "expected 4 proofs" "verify proof-count message"
# shellcheck disable=SC2086
expect 2 "verify .params as --vk" -- "$SP" verify --vk "$T/a/circuit.params" --proofs "$T/a.proofs" $P
has "error: $T/a/circuit.params is a .params parameter file; --vk takes a .vk file" "verify vk error"

# ---- the independent verifier on the CLI's files -----------------------------------
if command -v node >/dev/null 2>&1 && test -d "$top_srcdir/tests/oracle/node_modules/@noble/curves"; then
  # shellcheck disable=SC2086
  expect 0 "noble verifies the CLI's proofs" -- node "$top_srcdir/tests/oracle/verify_groth16.mjs" --vk "$T/a/circuit.vk" --proofs "$T/a.proofs" $P
  # shellcheck disable=SC2086
  expect 1 "noble rejects the tampered proof" -- node "$top_srcdir/tests/oracle/verify_groth16.mjs" --vk "$T/a/circuit.vk" --proofs "$T/bad.proofs" $P
  has "proof 2: invalid" "noble names proof 2"
else
  echo "note: node or tests/oracle/node_modules missing: oracle part skipped"
fi

# ---- demo --------------------------------------------------------------------------
expect 0 "demo" -- "$SP" demo -c "$T/two.ini" --constraints 300 --partitions 4
has "demo OK" "demo summary"
has "4 of 4 proofs verify" "demo verification"
expect 0 "demo --json" -- "$SP" demo -c "$T/two.ini" --constraints 300 --partitions 3 --json
has '"verified": 3' "demo --json"
# the load's progress in the demo: its parameter file's real size, never "0.0 of 0.0 MB"
expect 0 "demo --progress" -- "$SP" --progress demo -c "$T/two.ini" --constraints 300 --partitions 1
has "^sealprov demo: loading the parameters: 100 % ([0-9.]* of [0-9.]* KB," "demo load progress"
lacks "0.0 of 0.0" "demo load progress: a size"
has "1 of 1 proof verifies" "demo: one proof"

# ---- small things ---------------------------------------------------------------------
# one proof is "1 proof"
expect 0 "prove one partition" -- "$SP" prove -c "$T/two.ini" --params "$T/a/circuit.params" --out "$T/one.proofs" "$T/a/partition-00.spa"
has "^1 proof on 1 device in " "prove: one proof"
# verify of a .vk loads a verifying key, not "the parameters"
expect 0 "verify --progress" -- "$SP" --progress verify --vk "$T/a/circuit.vk" --proofs "$T/one.proofs" "$T/a/partition-00.spa"
has "^1 of 1 proof verifies" "verify: one proof"
lacks "loading the parameters" "verify of a .vk: the noun"
# setup's --gpu in its usage line, in every build, with what it needs
"$SP" help setup >"$T/out" 2>&1
sed -n '1,3p' "$T/out" | grep -q -- '--gpu\[=ORDINAL\]' || fail "help setup: --gpu is not in the usage line"
has "a build with CUDA (configure --with-cuda)" "help setup: what --gpu needs"
# bench gpu in a build without CUDA (but with the benchmarks) says how to get one
if [ "${SP_BENCHMARKS:-yes}" = yes ] && ! "$SP" help | grep -q '^  bench gpu '; then
  expect 2 "bench gpu without CUDA" -- "$SP" bench gpu
  has "error: 'bench gpu' needs a build with CUDA: this one was configured without it (configure --with-cuda" "bench gpu without CUDA: names --with-cuda"
fi

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all CLI checks passed"
exit 0
