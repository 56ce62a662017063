#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Devices of different memory and speed through the real module, CPU devices standing
# in for GPUs (docs/configuration.md, "Cards of different sizes and speeds"): a device
# whose memory_limit is below what the job's partitions need never proves one and is
# never charged; a provider where no device has the memory refuses the parameters at
# srs_load with the bytes needed and available and the memory_limit that works;
# `devices --json` and `check-config --wide` show the largest partition each device
# proves. In a build with fault injection, a device ten times slower ([testing] inject
# = slow) proves at most one partition of a job: the one that measures it.
set -eu
# shellcheck source=tests/tools/cli_prove_env.sh
. "${top_srcdir:?run through make check}/tests/tools/cli_prove_env.sh"

"$sealprov" setup --constraints 2^10 --inputs 2 --partitions 6 --seed 34 --out "$tmp/s" >/dev/null 2>&1
parts=$(ls "$tmp"/s/partition-*.spa)

# A big device and a small one (64 KiB: a 2^10 partition needs 112 KiB on the CPU
# engine, the largest sealing-shaped one that fits is 2^9).
printf '[big]\ntype = cpu\n[small]\ntype = cpu\nmemory_limit = 64KiB\n' > "$tmp/mixed.ini"
"$sealprov" devices --plugin "$SEALPROV_PLUGIN" -c "$tmp/mixed.ini" --json > "$tmp/dev.json"
cat "$tmp/dev.json"; echo
grep -q '"section": "big".*"device_memory": 0, "largest_partition": {"resident": -1, "tables": -1, "streamed": -1}' "$tmp/dev.json" \
  || fail "devices --json: the unbounded device"
grep -q '"section": "small".*"memory_limit": 65536,.*"device_memory": 65536, "largest_partition": {"resident": 9, "tables": 0, "streamed": 9}' "$tmp/dev.json" \
  || fail "devices --json: the small device's largest partition"
"$sealprov" check-config --plugin "$SEALPROV_PLUGIN" --wide "$tmp/mixed.ini" > "$tmp/check.out"
cat "$tmp/check.out"
grep -q '2^k r/s' "$tmp/check.out" || fail "check-config: no capacity column"
grep -Eq '^1 +small .* 9/9 +ready$' "$tmp/check.out" || fail "check-config: the small device's 9/9"

# shellcheck disable=SC2086
"$sealprov" prove --plugin "$SEALPROV_PLUGIN" -c "$tmp/mixed.ini" --params "$tmp/s/circuit.params" \
  --out "$tmp/mixed.proofs" --json $parts > "$tmp/mixed.json" 2> "$tmp/mixed.err" \
  || { cat "$tmp/mixed.err"; fail "mixed: prove failed"; }
cat "$tmp/mixed.json"; echo
[ "$(grep -o '"device_name": "[a-z]*"' "$tmp/mixed.json" | sort -u)" = '"device_name": "big"' ] \
  || fail "mixed: a partition went to the small device"
grep -q '"attempts": 2' "$tmp/mixed.json" && fail "mixed: a partition was retried"
grep -q 'device 1 (small) needs 114688 bytes (112.00 KiB) and may use 65536 bytes (64.00 KiB, its memory_limit): memory_limit = 112KiB or more fits' "$tmp/mixed.err" \
  || fail "mixed: no warning that the small device gets none of these partitions"
# shellcheck disable=SC2086
"$sealprov" verify --vk "$tmp/s/circuit.vk" --proofs "$tmp/mixed.proofs" $parts >/dev/null \
  || fail "mixed: a proof does not verify"

# Only the small device: srs_load refuses the parameters before any proving.
printf '[small]\ntype = cpu\nmemory_limit = 64KiB\n' > "$tmp/small.ini"
rc=0
# shellcheck disable=SC2086
"$sealprov" prove --plugin "$SEALPROV_PLUGIN" -c "$tmp/small.ini" --params "$tmp/s/circuit.params" \
  --out "$tmp/small.proofs" $parts > "$tmp/small.out" 2>&1 || rc=$?
cat "$tmp/small.out"
[ "$rc" -eq 1 ] || fail "small: exit $rc, expected 1"
grep -q 'device memory: srs_load: no device of this provider has the memory for a partition of .*circuit.params (domain 2^10, [0-9]* aux, 3 inputs): device 0 (small) needs 114688 bytes .*memory_limit = 112KiB or more fits' "$tmp/small.out" \
  || fail "small: the refusal does not say what is needed and what fits"

if [ "${SP_FAULT_INJECTION:-no}" = yes ]; then
  # small partitions: the slow device's one takes ten times a fast one's
  "$sealprov" setup --constraints 2^6 --inputs 2 --partitions 6 --seed 35 --out "$tmp/t" >/dev/null 2>&1
  small=$(ls "$tmp"/t/partition-*.spa)
  printf '[fast]\ntype = cpu\n[slow]\ntype = cpu\n[testing]\ninject_device = slow\ninject = slow\n' > "$tmp/speed.ini"
  # shellcheck disable=SC2086
  "$sealprov" prove --plugin "$SEALPROV_PLUGIN" -c "$tmp/speed.ini" --params "$tmp/t/circuit.params" \
    --out "$tmp/speed.proofs" --json $small > "$tmp/speed.json" || fail "speed: prove failed"
  cat "$tmp/speed.json"; echo
  n=$(grep -o '"device_name": "slow"' "$tmp/speed.json" | wc -l)
  [ "$n" -le 1 ] || fail "speed: the slow device proved $n partitions, at most 1 expected"
  # shellcheck disable=SC2086
  "$sealprov" verify --vk "$tmp/t/circuit.vk" --proofs "$tmp/speed.proofs" $small >/dev/null \
    || fail "speed: a proof does not verify"
fi
echo "capacity: all checks passed"
