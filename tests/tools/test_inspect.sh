#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# test_inspect.sh -- `sealprov inspect` knows every file the project makes or reads, by
# its content (issue 25 item 3): .params, .vk, .spa, .r1cs (setup writes it), proof
# files (prove), .wtns (wtns), the INI file, parameters.json, snarkjs's JSON files and
# .zkey headers; each is described, --check reads it whole with its own reader, --json
# names its kind, and a file of none of these kinds is said to be one, not reported as a
# corrupt parameter file. (snarkjs's own files: tests/snarkjs/test_snarkjs.sh.)
set -u

: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
SP="$top_builddir/tools/sealprov"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/sp_inspect_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
. "$top_srcdir/tests/tools/cli_lib.sh" # fail, expect, has, lacks
# bytes from hex pairs (no xxd on a bare machine)
hex() { for b in $(echo "$1" | sed 's/../& /g'); do printf "\\$(printf %03o "0x$b")"; done; }
# a little-endian u32 / u64 as hex
le32() { printf '%08x' "$1" | sed 's/\(..\)\(..\)\(..\)\(..\)/\4\3\2\1/'; }
le64() { printf '%016x' "$1" | sed 's/\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)/\8\7\6\5\4\3\2\1/'; }
# a prime given big-endian, as iden3's files write it (little-endian)
rev() { echo "$1" | sed 's/../&\n/g' | sed '/^$/d' | tac | tr -d '\n'; }
R_BLS=73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
R_BN=30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001
P_BLS=1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab

cat >"$T/one.ini" <<EOF
[provider]
log_level = warn
params_subgroup_check = false
[cpu0]
type = cpu
workers = 2
EOF

# ---- what sealprov itself makes -----------------------------------------------------
"$SP" setup --constraints 500 --inputs 3 --partitions 2 --seed 7 --out "$T/a" >/dev/null 2>&1 || fail "setup"
"$SP" prove -c "$T/one.ini" --params "$T/a/circuit.params" --out "$T/p.proofs" \
  "$T/a/partition-00.spa" "$T/a/partition-01.spa" >/dev/null 2>&1 || fail "prove"
"$SP" wtns "$T/a/partition-00.spa" "$T/w.wtns" || fail "wtns"

expect 0 "inspect the .r1cs setup writes" -- "$SP" inspect "$T/a/circuit.r1cs"
has "circuit.r1cs: circom constraint system (.r1cs version 1)" ".r1cs kind"
has "field *BLS12-381's scalar field r" ".r1cs field"
has "wires *521 (ONE, 0 public outputs, 3 public inputs" ".r1cs wires"
has "constraints *496 " ".r1cs constraints"
lacks "trailing bytes" ".r1cs is not a corrupt parameter file"
expect 0 "inspect a proof file" -- "$SP" inspect "$T/p.proofs"
has "p.proofs: Groth16 proofs (a proof file), 384 bytes" "proofs kind"
has "proofs *2 of 192 bytes" "proofs count"
expect 0 "inspect a .wtns" -- "$SP" inspect "$T/w.wtns"
has "circom witness (.wtns version 2)" ".wtns kind"
has "values *521 " ".wtns count"
expect 0 "inspect an INI" -- "$SP" inspect "$T/one.ini" "$top_srcdir/conf/sealprov.ini"
has "one.ini: sealprov configuration (INI, sealprov.ini(5))" "INI kind"
has "\[cpu0\] *cpu, 2 workers" "INI device"
has "on-curve checks only (params_subgroup_check = false)" "INI subgroup setting"
has "every parameter point checked" "the sample INI's subgroup setting"
# every kind at once, in JSON, and each one's own reader under --check
expect 0 "inspect --json --check of every kind sealprov makes" -- "$SP" inspect --json --check \
  "$T/a/circuit.params" "$T/a/circuit.vk" "$T/a/partition-00.spa" "$T/a/circuit.r1cs" \
  "$T/p.proofs" "$T/w.wtns" "$T/one.ini"
for k in params vk spa r1cs proofs wtns ini; do
  has "\"kind\": \"$k\"" "--json kind $k"
done
[ "$(grep -o '"check": "ok"' "$T/out" | wc -l)" -eq 7 ] || fail "--check: not all 7 files checked ok"
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["files"]) == 7' "$T/out" \
    || fail "inspect --json is not the JSON expected"
fi

# --check finds what the headers cannot: a proof point off its curve, a scalar >= r
cp "$T/p.proofs" "$T/bad.proofs"
printf '\377\377\377\377' | dd of="$T/bad.proofs" bs=1 seek=200 conv=notrunc 2>/dev/null
expect 0 "a tampered proof file still looks like one" -- "$SP" inspect "$T/bad.proofs"
expect 1 "inspect --check of a tampered proof file" -- "$SP" inspect --check "$T/bad.proofs"
has "bad.proofs: proof 1 (byte 192): A: " "the bad point is named"

# ---- what sealprov reads from others ---------------------------------------------------
cat >"$T/parameters.json" <<'EOF'
{
  "v28-stacked-proof-of-replication-test.params": {"cid": "Qm1", "digest": "00ff", "sector_size": 2048},
  "v28-stacked-proof-of-replication-test.vk": {"cid": "Qm2", "digest": "11ee", "sector_size": 2048}
}
EOF
expect 0 "inspect parameters.json" -- "$SP" inspect "$T/parameters.json"
has "Filecoin parameter manifest (parameters.json)" "manifest kind"
has "entries *2 (1 .params, 1 .vk" "manifest entries"
printf '[\n "1",\n "22",\n "333"\n]' >"$T/public.json"
expect 0 "inspect public.json" -- "$SP" inspect --json "$T/public.json"
has '"kind": "snarkjs_public", "bytes": [0-9]*, "signals": 3' "public.json"
cat >"$T/verification_key.json" <<'EOF'
{"protocol": "groth16", "curve": "bn128", "nPublic": 1,
 "vk_alpha_1": ["1", "2", "1"], "IC": [["1", "2", "1"], ["1", "2", "1"]]}
EOF
expect 0 "inspect verification_key.json" -- "$SP" inspect "$T/verification_key.json"
has "snarkjs verifying key (verification_key.json)" "vk.json kind"
has "curve *bn128: sealprov verifies BLS12-381" "vk.json: another curve said"
has "IC *2 points (ONE and 1 public signal)" "vk.json IC"
printf '{"pi_a": ["1","2","1"], "pi_b": [["1","2"],["3","4"],["1","0"]], "pi_c": ["1","2","1"], "protocol": "groth16", "curve": "bls12381"}' >"$T/proof.json"
expect 0 "inspect proof.json" -- "$SP" inspect "$T/proof.json"
has "snarkjs Groth16 proof (proof.json)" "proof.json kind"
expect 1 "inspect --check of a proof.json whose points are off the curve" -- "$SP" inspect --check "$T/proof.json"
has "not on the curve" "proof.json --check"

# .zkey and .r1cs/.wtns headers of other fields: described, with what sealprov takes
{ printf 'zkey'; hex "$(le32 1)$(le32 2)"
  hex "$(le32 1)$(le64 4)$(le32 1)"
  hex "$(le32 2)$(le64 100)$(le32 48)$(rev $P_BLS)$(le32 32)$(rev $R_BLS)$(le32 7)$(le32 2)$(le32 16)"
} >"$T/key.zkey"
expect 0 "inspect a .zkey header" -- "$SP" inspect --json "$T/key.zkey"
has '"kind": "zkey"' "zkey kind"
has '"curve_q_name": "BLS12-381.s base field p"' "zkey curve"
has '"n_vars": 7, "n_public": 2, "domain_size": 16' "zkey counts"
{ printf 'wtns'; hex "$(le32 2)$(le32 2)"
  hex "$(le32 1)$(le64 40)$(le32 32)$(rev $R_BN)$(le32 1)"
  hex "$(le32 2)$(le64 32)$(rev 0000000000000000000000000000000000000000000000000000000000000001)"
} >"$T/bn.wtns"
expect 0 "inspect a BN254 .wtns" -- "$SP" inspect "$T/bn.wtns"
has "field *BN254's scalar field r (snarkjs's bn128, circom's default): sealprov proves over BLS12-381 only" "bn254 .wtns"
expect 1 "inspect --check of a BN254 .wtns" -- "$SP" inspect --check "$T/bn.wtns"
head -c 100 "$T/a/circuit.r1cs" >"$T/cut.r1cs"
expect 1 "inspect a cut .r1cs" -- "$SP" inspect "$T/cut.r1cs"
has "circom .r1cs: section" "cut .r1cs: the section named"

# ---- what is none of these ---------------------------------------------------------------
head -c 5000 "$T/a/circuit.params" >"$T/trunc.params"
expect 1 "a truncated .params is still a parameter file" -- "$SP" inspect "$T/trunc.params"
has "vector h: length 511" "truncated .params"
printf 'hello, world\n' >"$T/hello.txt"
: >"$T/empty"
echo '{"name": "x"}' >"$T/other.json"
expect 1 "files of no known kind" -- "$SP" inspect --json "$T/hello.txt" "$T/empty" "$T/other.json" "$T/a/circuit.vk"
has '"file": "'"$T"'/hello.txt", "error": ".*not a file sealprov reads or makes' "text file"
has '"file": "'"$T"'/empty", "error": ".*an empty file' "empty file"
has '"file": "'"$T"'/other.json", "error": ".*JSON, but none of the JSON files sealprov reads' "other JSON"
has '"kind": "vk"' "inspect goes on after files of no known kind"
lacks "trailing bytes" "no file of another kind is called a corrupt parameter file"

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "inspect: all checks passed"
exit 0
