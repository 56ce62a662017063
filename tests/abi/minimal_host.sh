#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# The ABI example of docs/abi.md (docs/examples/minimal_host.c, built by make check)
# against the built module with a CPU-only INI.
set -eu
: "${SEALPROV_PLUGIN:?SEALPROV_PLUGIN is not set (make check sets it)}"
host=${top_builddir:?}/tests/abi/minimal_host
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat > "$tmp/cpu.ini" <<'INI'
[cpu0]
type = cpu
[cpu1]
type = cpu
workers = 2
INI
out=$("$host" "$SEALPROV_PLUGIN" "$tmp/cpu.ini")
echo "$out"
echo "$out" | grep -q '^module [0-9][^ ]*, ABI 1\.' || fail "version line"
echo "$out" | grep -q "^device 0 \[cpu0\] cpu '.*' ordinal -1 confirmed -1 workers 1 ready$" || fail "cpu0"
echo "$out" | grep -q "^device 1 \[cpu1\] cpu '.*' ordinal -1 confirmed -1 workers 2 ready$" || fail "cpu1"
echo "$out" | grep -q '^stats: [0-9]* bytes, first line: # HELP sealprov_' || fail "stats"

printf '[cpu0]\ntype = cpu\nworkers = none\n' > "$tmp/bad.ini"
rc=0; "$host" "$SEALPROV_PLUGIN" "$tmp/bad.ini" 2> "$tmp/err" || rc=$?
cat "$tmp/err"
[ "$rc" -eq 1 ] && grep -q '^open: configuration error: .*bad.ini:3' "$tmp/err" || fail "bad INI"
rc=0; "$host" 2>/dev/null || rc=$?; [ "$rc" -eq 2 ] || fail "usage"

# The example's verify path, with parameters and a proof made by the CLI (when this
# build has the Groth16 commands).
sealprov=$top_builddir/tools/sealprov
if "$sealprov" setup --help >/dev/null 2>&1 && "$sealprov" prove --help >/dev/null 2>&1; then
  "$sealprov" setup --constraints 200 --inputs 3 --partitions 1 --seed 7 --out "$tmp/setup" >/dev/null
  "$sealprov" prove --plugin "$SEALPROV_PLUGIN" -c "$tmp/cpu.ini" --params "$tmp/setup/circuit.params" \
    --out "$tmp/proof" "$tmp/setup/partition-00.spa" >/dev/null
  # Public inputs 1.. of the .spa (docs/formats.md): u64 LE abc_size at 16, inp_size at
  # 24, the inputs after the header (96 bytes) and a, b, c (32 bytes x abc_size each).
  spa=$tmp/setup/partition-00.spa
  abc=$(od -An -t u8 -j 16 -N 8 "$spa" | tr -d ' ')
  inp=$(od -An -t u8 -j 24 -N 8 "$spa" | tr -d ' ')
  off=$((96 + 3 * 32 * abc + 32))
  hex=$(od -An -v -t x1 -j "$off" -N $((32 * (inp - 1))) "$spa" | tr -d ' \n' | sed 's/.\{64\}/&,/g; s/,$//')
  # `sealprov inspect --inputs-hex` (what docs/abi.md tells a user to run) gives the same.
  [ "$("$sealprov" inspect --inputs-hex "$spa")" = "$hex" ] || fail "inspect --inputs-hex differs from the file's inputs"
  out=$("$host" "$SEALPROV_PLUGIN" "$tmp/cpu.ini" "$tmp/setup/circuit.vk" "$hex" "$tmp/proof")
  echo "$out" | grep -q "^proof $tmp/proof: valid$" || fail "the proof does not verify"
  # One flipped bit in C: still decodes or not, it must not verify.
  cp "$tmp/proof" "$tmp/bad"
  printf '\001' | dd of="$tmp/bad" bs=1 seek=191 conv=notrunc 2>/dev/null
  rc=0; "$host" "$SEALPROV_PLUGIN" "$tmp/cpu.ini" "$tmp/setup/circuit.vk" "$hex" "$tmp/bad" \
    > "$tmp/bad.out" 2>&1 || rc=$?
  cat "$tmp/bad.out"
  [ "$rc" -eq 1 ] || fail "a corrupted proof was accepted"
  # The .params file as the key: refused (docs/abi.md: verification needs the .vk).
  rc=0; "$host" "$SEALPROV_PLUGIN" "$tmp/cpu.ini" "$tmp/setup/circuit.params" "$hex" "$tmp/proof" \
    2> "$tmp/params.out" || rc=$?
  cat "$tmp/params.out"
  [ "$rc" -eq 1 ] && grep -q '^vk_load: ' "$tmp/params.out" || fail "a .params file was taken as a verifying key"
  # Wrong number of inputs: a precise refusal.
  rc=0; "$host" "$SEALPROV_PLUGIN" "$tmp/cpu.ini" "$tmp/setup/circuit.vk" "${hex%%,*}" "$tmp/proof" \
    2> "$tmp/count.out" || rc=$?
  cat "$tmp/count.out"
  [ "$rc" -eq 1 ] && grep -q 'num_inputs 1 does not match the verifying key (3 public inputs' "$tmp/count.out" \
    || fail "input count"
  echo "verify path: checked"
else
  echo "verify path: skipped (no setup/prove commands in this build)"
fi
echo "minimal_host: all checks passed"
