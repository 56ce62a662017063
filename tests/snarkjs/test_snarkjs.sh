#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# test_snarkjs.sh -- snarkjs interop with snarkjs and circom themselves on the other
# side: circuits compiled by circom (the circom2 npm package, --prime bls12381),
# witnesses from circom's wasm, Groth16 keys from snarkjs over a small BLS12-381 powers
# of tau. Checks that
#   - `sealprov prove --zkey --wtns` proofs pass `snarkjs groth16 verify`;
#   - with r = s = 0 they are byte-equal to snarkjs's own proof with zero blinding
#     (prove_zero_rs.mjs), public.json too;
#   - snarkjs's proofs pass `sealprov verify` with its verification_key.json, and a
#     wrong public signal fails it;
#   - a truncated key, a bn128 key or witness, and a witness of another circuit give
#     precise errors;
#   - sealprov's own .r1cs and .wtns (setup, wtns) pass snarkjs's reader and witness
#     check, and a snarkjs key made from that .r1cs proves with sealprov.
# Skips (77) when node, npm or tests/snarkjs/node_modules are missing (`npm ci` in
# tests/snarkjs installs the pinned snarkjs and circom2; .ci/run does).
set -u

: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
SP="$top_builddir/tools/sealprov"
D="$top_srcdir/tests/snarkjs"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }
# npm only installs them (dev/run test fetches npm itself where the machine has none)
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node not installed (Debian: apt-get install --no-install-recommends nodejs)"
  exit 77
fi
if ! test -x "$D/node_modules/.bin/snarkjs" || ! test -x "$D/node_modules/.bin/circom2"; then
  echo "SKIP: snarkjs/circom2 not installed: run (cd $D && npm ci)"
  exit 77
fi
SNARKJS="$D/node_modules/.bin/snarkjs"
CIRCOM="$D/node_modules/.bin/circom2"

T=$(mktemp -d "${TMPDIR:-/tmp}/sp_snarkjs_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
. "$top_srcdir/tests/tools/cli_lib.sh" # fail, expect, has, lacks
# setup step: a failure here is the test bed's, not sealprov's: stop
run() {
  what=$1; shift
  "$@" >"$T/setup.log" 2>&1 || { echo "ERROR: $what failed:"; sed 's/^/    /' "$T/setup.log"; exit 99; }
}

# One powers of tau over BLS12-381 (2^5: the largest circuit has 25 rows), with one
# contribution, for every circuit.
run "powersoftau new" "$SNARKJS" powersoftau new bls12381 5 "$T/p0.ptau"
run "powersoftau contribute" "$SNARKJS" powersoftau contribute "$T/p0.ptau" "$T/p1.ptau" -e=sealprov-test
run "powersoftau prepare phase2" "$SNARKJS" powersoftau prepare phase2 "$T/p1.ptau" "$T/pot.ptau"

# circuit NAME INPUT_JSON: compile, key, verifying key, witness in $T/NAME/
circuit() {
  mkdir -p "$T/$1"
  run "circom $1" "$CIRCOM" "$D/circuits/$1.circom" --r1cs --wasm --prime bls12381 -o "$T/$1"
  run "groth16 setup $1" "$SNARKJS" groth16 setup "$T/$1/$1.r1cs" "$T/pot.ptau" "$T/$1/$1.zkey"
  run "export vk $1" "$SNARKJS" zkey export verificationkey "$T/$1/$1.zkey" "$T/$1/vk.json"
  printf '%s\n' "$2" >"$T/$1/input.json"
  run "wtns calculate $1" "$SNARKJS" wtns calculate "$T/$1/$1_js/$1.wasm" "$T/$1/input.json" "$T/$1/w.wtns"
}

for spec in 'mul {"a": "3", "b": "11", "c": "5"}' \
            'chain {"x": "7", "k": "123456789"}' \
            'multi {"p": "17", "q": "1000", "u": "40000", "v": "9"}'; do
  c=${spec%% *}
  circuit "$c" "${spec#* }"
  C="$T/$c"

  # sealprov's proof (random r, s) passes snarkjs's verifier
  expect 0 "$c: sealprov prove --zkey" -- "$SP" prove --zkey "$C/$c.zkey" --wtns "$C/w.wtns" \
    --out-proof "$C/sp_proof.json" --out-public "$C/sp_public.json"
  has "it verifies" "$c: prove reports its own check"
  expect 0 "$c: snarkjs groth16 verify accepts sealprov's proof" -- \
    "$SNARKJS" groth16 verify "$C/vk.json" "$C/sp_public.json" "$C/sp_proof.json"
  has "OK" "$c: snarkjs says OK"

  # r = s = 0: the same bytes as snarkjs's prover with zero blinding
  run "snarkjs zero-blinding proof $c" node "$D/prove_zero_rs.mjs" "$C/$c.zkey" "$C/w.wtns" \
    "$C/sj_zero_proof.json" "$C/sj_zero_public.json"
  expect 0 "$c: sealprov prove --zkey --zero-rs" -- "$SP" prove --zkey "$C/$c.zkey" --wtns "$C/w.wtns" \
    --out-proof "$C/sp_zero_proof.json" --out-public "$C/sp_zero_public.json" --zero-rs
  has "NOT zero-knowledge" "$c: --zero-rs warns"
  cmp -s "$C/sj_zero_proof.json" "$C/sp_zero_proof.json" ||
    { fail "$c: r = s = 0 proof.json differs from snarkjs's"; diff "$C/sj_zero_proof.json" "$C/sp_zero_proof.json" | head -20; }
  cmp -s "$C/sj_zero_public.json" "$C/sp_zero_public.json" ||
    fail "$c: public.json differs from snarkjs's"
  cmp -s "$C/sp_zero_proof.json" "$C/sp_proof.json" &&
    fail "$c: the blinded proof equals the r = s = 0 one (no blinding?)"

  # snarkjs's own proof passes sealprov's verifier; a wrong public signal does not
  run "snarkjs groth16 prove $c" "$SNARKJS" groth16 prove "$C/$c.zkey" "$C/w.wtns" "$C/sj_proof.json" "$C/sj_public.json"
  expect 0 "$c: sealprov verify accepts snarkjs's proof" -- \
    "$SP" verify --vk "$C/vk.json" --proof "$C/sj_proof.json" --public "$C/sj_public.json"
  has "valid" "$c: verify says valid"
  sed '2s/"[0-9]*"/"4242"/' "$C/sj_public.json" >"$C/bad_public.json"
  cmp -s "$C/sj_public.json" "$C/bad_public.json" && fail "$c: the public signal was not changed"
  expect 1 "$c: sealprov verify rejects a changed public signal" -- \
    "$SP" verify --vk "$C/vk.json" --proof "$C/sj_proof.json" --public "$C/bad_public.json"
  has "invalid" "$c: verify says invalid"
done

# ---- sealprov inspect on the files snarkjs and circom made (issue 25 item 3) ---------
M="$T/mul"
expect 0 "inspect of circom's and snarkjs's files" -- "$SP" inspect --json --check "$M/mul.zkey" \
  "$M/mul.r1cs" "$M/w.wtns" "$M/vk.json" "$M/sj_proof.json" "$M/sj_public.json"
for k in zkey r1cs wtns snarkjs_vk snarkjs_proof snarkjs_public; do
  has "\"kind\": \"$k\"" "inspect: $k"
done
[ "$(grep -o '"check": "ok"' "$T/out" | wc -l)" -eq 6 ] || fail "inspect --check: not all 6 files ok"
has '"curve_q_name": "BLS12-381.s base field p"' "inspect: the zkey's curve"
expect 0 "inspect (text) of snarkjs's key" -- "$SP" inspect "$M/mul.zkey" "$M/vk.json"
has "snarkjs proving key (.zkey version 1, groth16)" "inspect: zkey kind"
has "for *sealprov prove --zkey" "inspect: what a zkey is for"
has "snarkjs verifying key (verification_key.json)" "inspect: vk.json kind"

# ---- bad inputs -----------------------------------------------------------------------
size=$(wc -c <"$M/mul.zkey")
head -c $((size - 100)) "$M/mul.zkey" >"$T/trunc.zkey"
expect 2 "truncated zkey" -- "$SP" prove --zkey "$T/trunc.zkey" --wtns "$M/w.wtns" \
  --out-proof "$T/x.json" --out-public "$T/y.json"
has "trunc.zkey: section" "truncated zkey: the message names the file and section"
has "truncated?" "truncated zkey: the message says truncated"
head -c 700 "$M/mul.zkey" >"$T/trunc2.zkey"
expect 2 "zkey cut inside its sections" -- "$SP" prove --zkey "$T/trunc2.zkey" --wtns "$M/w.wtns" \
  --out-proof "$T/x.json" --out-public "$T/y.json"
has "runs past the end\|truncated?" "zkey cut inside its sections: says where"

# a point off its curve: one byte of H point 3 changed (node finds section 9)
node -e '
const fs = require("fs"); const b = fs.readFileSync(process.argv[1]);
let off = 12; const n = b.readUInt32LE(8);
for (let i = 0; i < n; i++) {
  const t = b.readUInt32LE(off), sz = Number(b.readBigUInt64LE(off + 4)); off += 12;
  if (t === 9) { b[off + 96 * 3 + 5] ^= 0x40; break; }
  off += sz;
}
fs.writeFileSync(process.argv[2], b);' "$M/mul.zkey" "$T/badpoint.zkey" || fail "could not make badpoint.zkey"
expect 2 "zkey with a point off its curve" -- "$SP" prove --zkey "$T/badpoint.zkey" --wtns "$M/w.wtns" \
  --out-proof "$T/x.json" --out-public "$T/y.json"
has "section 9 (H points): point 3 at byte offset" "bad point: names section, point and offset"
has "not on the curve" "bad point: says why"

expect 2 "witness of another circuit" -- "$SP" prove --zkey "$T/chain/chain.zkey" --wtns "$M/w.wtns" \
  --out-proof "$T/x.json" --out-public "$T/y.json"
has "has 6 values" "witness of another circuit: its count"
has "nVars 16" "witness of another circuit: the key's count"
test -e "$T/x.json" && fail "witness of another circuit: a proof file was written"

# a witness of the right size that does not satisfy the circuit: out (value 1) changed.
# .wtns: 12-byte file header, header section (12 + 40), values section header (12): the
# values start at byte 76.
cp "$M/w.wtns" "$T/wrong.wtns"
printf '\007' | dd of="$T/wrong.wtns" bs=1 seek=108 conv=notrunc 2>/dev/null
expect 1 "witness that does not satisfy the circuit" -- "$SP" prove --zkey "$M/mul.zkey" --wtns "$T/wrong.wtns" \
  --out-proof "$T/x.json" --out-public "$T/y.json"
has "does not satisfy" "unsatisfied witness: says so"
test -e "$T/x.json" && fail "unsatisfied witness: a proof file was written"

# bn128 (circom's and snarkjs's default curve)
mkdir -p "$T/bn"
run "circom bn128" "$CIRCOM" "$D/circuits/mul.circom" --r1cs --wasm -o "$T/bn"
run "powersoftau bn128" "$SNARKJS" powersoftau new bn128 4 "$T/bn/p0.ptau"
run "contribute bn128" "$SNARKJS" powersoftau contribute "$T/bn/p0.ptau" "$T/bn/p1.ptau" -e=x
run "phase2 bn128" "$SNARKJS" powersoftau prepare phase2 "$T/bn/p1.ptau" "$T/bn/pot.ptau"
run "setup bn128" "$SNARKJS" groth16 setup "$T/bn/mul.r1cs" "$T/bn/pot.ptau" "$T/bn/mul.zkey"
run "wtns bn128" "$SNARKJS" wtns calculate "$T/bn/mul_js/mul.wasm" "$M/input.json" "$T/bn/w.wtns"
run "vk bn128" "$SNARKJS" zkey export verificationkey "$T/bn/mul.zkey" "$T/bn/vk.json"
expect 2 "bn128 zkey" -- "$SP" prove --zkey "$T/bn/mul.zkey" --wtns "$M/w.wtns" \
  --out-proof "$T/x.json" --out-public "$T/y.json"
has "bn128" "bn128 zkey: names the curve"
has "0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47" "bn128 zkey: names the prime"
has "BLS12-381" "bn128 zkey: says what is supported"
expect 2 "bn128 witness with a BLS12-381 key" -- "$SP" prove --zkey "$M/mul.zkey" --wtns "$T/bn/w.wtns" \
  --out-proof "$T/x.json" --out-public "$T/y.json"
has "w.wtns" "bn128 witness: names the file"
has "BN254" "bn128 witness: names the curve"
expect 2 "bn128 verification key" -- "$SP" verify --vk "$T/bn/vk.json" --proof "$M/sj_proof.json" \
  --public "$M/sj_public.json"
has "bn128" "bn128 vk: names the curve"
# inspect tells a bn128 file for what it is, without calling it malformed
expect 0 "inspect bn128 files" -- "$SP" inspect "$T/bn/mul.zkey" "$T/bn/mul.r1cs" "$T/bn/w.wtns" "$T/bn/vk.json"
has "curve (q) *BN254's base field q (bn128): sealprov proves over BLS12-381 only" "inspect: bn128 zkey"
has "field *BN254's scalar field r (snarkjs's bn128, circom's default): sealprov proves over BLS12-381 only" "inspect: bn128 r1cs/wtns"
has "curve *bn128: sealprov verifies BLS12-381" "inspect: bn128 vk.json"

# usage errors
expect 2 "--zkey without --wtns" -- "$SP" prove --zkey "$M/mul.zkey"
has "missing --wtns" "--zkey without --wtns: says what is missing"
expect 2 "--zkey with --params" -- "$SP" prove --zkey "$M/mul.zkey" --wtns "$M/w.wtns" --params x.params
has "cannot be combined" "--zkey with --params: says why"
expect 2 "verify: a JSON key without --proof" -- "$SP" verify --vk "$M/vk.json" --public "$M/sj_public.json"
has "missing --proof" "verify without --proof: says what is missing"
printf '{"pi_a": ["1", "2", "1"], "pi_b": [["1","0"],["1","0"],["1","0"]], "pi_c": ["1","2","1"], "protocol": "groth16", "curve": "bls12381"}' >"$T/offcurve.json"
expect 1 "verify: a proof point off the curve" -- "$SP" verify --vk "$M/vk.json" --proof "$T/offcurve.json" \
  --public "$M/sj_public.json"
has "not on the curve" "off-curve proof: says why"
# a public.json of more values than any snarkjs file has: refused while parsing, not
# after gigabytes of parse tree (kit/cli/snarkjs_json.c JV_MAX_VALUES = 2^21)
awk 'BEGIN { printf "["; for (i = 0; i < 2097153; i++) printf "%s\"1\"", i ? "," : ""; print "]" }' \
  >"$T/huge_public.json"
expect 2 "verify: a public.json of 2^21 + 1 values" -- "$SP" verify --vk "$M/vk.json" \
  --proof "$M/sj_proof.json" --public "$T/huge_public.json"
has "more than 2097152 values" "huge public.json: says why"
printf '{"pi_a": [' >"$T/cut.json"
expect 2 "verify: proof.json cut short" -- "$SP" verify --vk "$M/vk.json" --proof "$T/cut.json" \
  --public "$M/sj_public.json"
has "cut.json: not valid JSON at byte offset" "cut proof.json: names the file and offset"

# sealprov's own files as snarkjs reads them: the .r1cs of `sealprov setup` and the
# .wtns of `sealprov wtns` (the same pair `sealprov prove --r1cs` takes) pass snarkjs's
# own reader and witness check (a witness with one value changed does not); a snarkjs
# key made from that .r1cs proves with `sealprov prove --zkey`, and snarkjs verifies.
O="$T/own"
run "sealprov setup (own r1cs)" "$SP" setup --constraints 24 --inputs 2 --partitions 1 --seed 7 \
  --out "$O"
run "sealprov wtns" "$SP" wtns "$O/partition-00.spa" "$O/w.wtns"
expect 0 "own r1cs: snarkjs r1cs info" -- "$SNARKJS" r1cs info "$O/circuit.r1cs"
has "Curve: bls12-381" "own r1cs: snarkjs reads the curve"
has "# of Public Inputs: 2" "own r1cs: snarkjs reads the public inputs"
expect 0 "own r1cs + wtns: snarkjs wtns check" -- "$SNARKJS" wtns check "$O/circuit.r1cs" "$O/w.wtns"
has "WITNESS IS CORRECT" "own r1cs + wtns: snarkjs finds the witness correct"
# aux value 4 of 26 (a constrained wire of the sealing shape), low byte changed
run "change one witness value" node -e '
  const fs = require("fs"); const b = fs.readFileSync(process.argv[1]);
  b[b.length - 32 * 22] ^= 4; fs.writeFileSync(process.argv[2], b);' "$O/w.wtns" "$O/bad.wtns"
expect 1 "own r1cs + changed wtns: snarkjs wtns check" -- "$SNARKJS" wtns check "$O/circuit.r1cs" "$O/bad.wtns"
has "WITNESS IS NOT CORRECT" "own r1cs + changed wtns: snarkjs finds the witness wrong"
run "groth16 setup (own r1cs)" "$SNARKJS" groth16 setup "$O/circuit.r1cs" "$T/pot.ptau" "$O/own.zkey"
run "export vk (own r1cs)" "$SNARKJS" zkey export verificationkey "$O/own.zkey" "$O/vk.json"
expect 0 "own r1cs: sealprov prove --zkey" -- "$SP" prove --zkey "$O/own.zkey" --wtns "$O/w.wtns" \
  --out-proof "$O/proof.json" --out-public "$O/public.json"
expect 0 "own r1cs: snarkjs groth16 verify" -- "$SNARKJS" groth16 verify "$O/vk.json" "$O/public.json" "$O/proof.json"
has "OK" "own r1cs: snarkjs says OK"

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all snarkjs interop checks passed"
exit 0
