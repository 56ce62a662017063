#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Faults on CPU devices through the real module ([testing] in the INI, a build with
# --enable-fault-injection): a device that corrupts proofs or fails kernels has its
# partitions redone on the other device and is quarantined; every proof returned
# verifies; with no healthy device left the job fails with NO_DEVICE and a message that
# says so. Uses the CLI's setup/prove/verify. A build without fault injection checks
# that the module refuses [testing] instead.
set -eu
# shellcheck source=tests/tools/cli_prove_env.sh
. "${top_srcdir:?run through make check}/tests/tools/cli_prove_env.sh"

# A module built without --enable-fault-injection (the production build) refuses a
# [testing] section, on its line, and says how to get one that takes it.
if [ "${SP_FAULT_INJECTION:-no}" != yes ]; then
  printf '[good]\ntype = cpu\n[testing]\ninject_device = good\ninject = fail_kernel\n' > "$tmp/t.ini"
  rc=0
  "$sealprov" check-config --plugin "$SEALPROV_PLUGIN" "$tmp/t.ini" > "$tmp/out" 2>&1 || rc=$?
  cat "$tmp/out"
  [ "$rc" -ne 0 ] || fail "a build without fault injection took [testing]"
  grep -q 't.ini:3: \[testing\]: fault injection is not built into this module (it is for tests: configure sealprov with --enable-fault-injection to get \[testing\])' "$tmp/out" \
    || fail "the refusal does not say where and how"
  echo "fault_injection: a build without --enable-fault-injection refuses [testing] (the faults themselves are tested in a build with it)"
  exit 0
fi

"$sealprov" setup --constraints 256 --inputs 2 --partitions 6 --seed 11 --out "$tmp/s" >/dev/null
parts=$(ls "$tmp"/s/partition-*.spa)

ini() { # ini FILE INJECT
  cat > "$1" <<INI
[provider]
quarantine_after = 2
max_attempts = 4
[good]
type = cpu
[bad]
type = cpu
[testing]
inject_device = bad
inject = $2
INI
}

for mode in corrupt_proof fail_kernel; do
  ini "$tmp/$mode.ini" "$mode"
  # shellcheck disable=SC2086
  "$sealprov" prove --plugin "$SEALPROV_PLUGIN" -c "$tmp/$mode.ini" --params "$tmp/s/circuit.params" \
    --out "$tmp/$mode.proofs" --json $parts > "$tmp/$mode.json" || fail "$mode: prove failed"
  cat "$tmp/$mode.json"; echo
  grep -q '"proofs": "[^"]*", "status": "ok"' "$tmp/$mode.json" || fail "$mode: job status"
  # Every partition's proof came from the healthy device...
  [ "$(grep -o '"device_name": "[a-z]*"' "$tmp/$mode.json" | sort -u)" = '"device_name": "good"' ] \
    || fail "$mode: a proof came from the faulty device"
  # ... and the faulty one did get work: some partition needed a second attempt.
  grep -q '"attempts": 2' "$tmp/$mode.json" || fail "$mode: no partition was retried"
  # shellcheck disable=SC2086
  "$sealprov" verify --vk "$tmp/s/circuit.vk" --proofs "$tmp/$mode.proofs" $parts >/dev/null \
    || fail "$mode: a returned proof does not verify"
done

# Only faulty devices: the job ends NO_DEVICE, with the reason.
cat > "$tmp/none.ini" <<INI
[provider]
quarantine_after = 1
max_attempts = 5
[bad]
type = cpu
[testing]
inject_device = bad
inject = fail_kernel
INI
rc=0
# shellcheck disable=SC2086
"$sealprov" prove --plugin "$SEALPROV_PLUGIN" -c "$tmp/none.ini" --params "$tmp/s/circuit.params" \
  --out "$tmp/none.proofs" --json $parts > "$tmp/none.json" 2>&1 || rc=$?
cat "$tmp/none.json"; echo
[ "$rc" -eq 1 ] || fail "all-faulty: exit $rc, expected 1"
grep -q 'no healthy device left' "$tmp/none.json" || fail "all-faulty: message"
grep -q 'injected kernel failure' "$tmp/none.json" || fail "all-faulty: the device's error"
echo "fault_injection: all checks passed"
