#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# prove_device.sh -- `sealprov prove --device N[,M...]` (job->device_mask, ABI 1.2) on
# three CPU devices: every partition runs on the devices named; an index past the
# table is refused with the module's message; a job pinned to a device with an injected
# kernel failure ([testing]) fails with the device's error, while a job that also
# allows another device moves there; a malformed list is a usage error (2).
set -u
: "${SEALPROV_PLUGIN:?SEALPROV_PLUGIN is not set (make check sets it)}"
SP=${top_builddir:?run through make check}/tools/sealprov
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/sp_dev_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

cat >"$T/three.ini" <<'INI'
[provider]
log_level = warn
[c0]
type = cpu
threads = 1
[c1]
type = cpu
threads = 1
[c2]
type = cpu
threads = 1
INI
"$SP" setup --constraints 200 --inputs 3 --partitions 6 --seed 5 --out "$T/p" >"$T/setup.out" 2>&1 ||
  { cat "$T/setup.out"; echo "FAIL: sealprov setup"; exit 1; }
set -- "$T"/p/partition-*.spa
[ "$#" -eq 6 ] || { echo "FAIL: setup wrote $# partition files, not 6"; exit 1; }

# devices that did the work, from --json: the distinct "device_name" values, sorted
used() { grep -o '"device_name": "[^"]*"' "$1" | sort -u | sed 's/.*: "//; s/"$//' | tr '\n' ' '; }

"$SP" prove -c "$T/three.ini" --params "$T/p/circuit.params" --out "$T/one.proofs" \
  --device 1 --json "$@" >"$T/one.json" 2>"$T/one.err" || { cat "$T/one.err"; fail "--device 1"; }
[ "$(used "$T/one.json")" = "c1 " ] || { cat "$T/one.json"; fail "--device 1 ran on: $(used "$T/one.json")"; }

"$SP" prove -c "$T/three.ini" --params "$T/p/circuit.params" --out "$T/two.proofs" \
  --device 0,2 --json "$@" >"$T/two.json" 2>"$T/two.err" || { cat "$T/two.err"; fail "--device 0,2"; }
case "$(used "$T/two.json")" in
  "c0 " | "c2 " | "c0 c2 ") ;;
  *) cat "$T/two.json"; fail "--device 0,2 ran on: $(used "$T/two.json")" ;;
esac
"$SP" verify --vk "$T/p/circuit.vk" --proofs "$T/one.proofs" "$@" >"$T/v1.out" 2>&1 ||
  { cat "$T/v1.out"; fail "proofs of --device 1 do not verify"; }
"$SP" verify --vk "$T/p/circuit.vk" --proofs "$T/two.proofs" "$@" >"$T/v2.out" 2>&1 ||
  { cat "$T/v2.out"; fail "proofs of --device 0,2 do not verify"; }

# past the table: refused before the parameters load, in words of the INI's devices
# (the module's own refusal at submit names the ABI's device_mask); no proof file
"$SP" prove -c "$T/three.ini" --params "$T/p/circuit.params" --out "$T/bad.proofs" \
  --device 3 "$@" >"$T/bad.out" 2>"$T/bad.err"
rc=$?
[ "$rc" -eq 2 ] || fail "--device 3: exit status $rc, expected 2"
grep -q "^sealprov prove: error: --device 3: there is no device 3: $T/three.ini has 3 devices, 0 to 2" "$T/bad.err" ||
  { cat "$T/bad.err"; fail "--device 3: no message naming the devices"; }
test -e "$T/bad.proofs" && fail "--device 3 wrote a proof file"

# an injected kernel failure on c1 ([testing], a build with --enable-fault-injection):
# pinned to c1 the job fails with the device's error once c1 is quarantined; allowed
# {c0, c1} it moves to c0 and verifies
if [ "${SP_FAULT_INJECTION:-no}" = yes ]; then
  cat >"$T/faulty.ini" <<'INI'
[provider]
log_level = error
quarantine_after = 1
max_attempts = 3
[c0]
type = cpu
threads = 1
[c1]
type = cpu
threads = 1
[c2]
type = cpu
threads = 1
[testing]
inject_device = c1
inject = fail_kernel
INI
  "$SP" prove -c "$T/faulty.ini" --params "$T/p/circuit.params" --out "$T/f1.proofs" \
    --device 1 --json "$@" >"$T/f1.json" 2>"$T/f1.err"
  rc=$?
  [ "$rc" -eq 1 ] || fail "--device 1 on a faulty c1: exit status $rc, expected 1"
  grep -q '"status": "device", "written": false' "$T/f1.json" ||
    { cat "$T/f1.json"; fail "--device 1 on a faulty c1: job status is not the device error"; }
  grep -q "not retried: the job's device_mask 0x2 allows no healthy device: device 1 (c1) quarantined after 1 failure" "$T/f1.err" ||
    { cat "$T/f1.err"; fail "--device 1 on a faulty c1: message"; }
  test -e "$T/f1.proofs" && fail "--device 1 on a faulty c1 wrote a proof file"
  "$SP" prove -c "$T/faulty.ini" --params "$T/p/circuit.params" --out "$T/f2.proofs" \
    --device 0,1 --json "$@" >"$T/f2.json" 2>"$T/f2.err" ||
    { cat "$T/f2.err"; fail "--device 0,1 on a faulty c1"; }
  [ "$(used "$T/f2.json")" = "c0 " ] || { cat "$T/f2.json"; fail "--device 0,1 (c1 faulty) ran on: $(used "$T/f2.json")"; }
  "$SP" verify --vk "$T/p/circuit.vk" --proofs "$T/f2.proofs" "$@" >"$T/v3.out" 2>&1 ||
    { cat "$T/v3.out"; fail "proofs of --device 0,1 (c1 faulty) do not verify"; }
else
  echo "[testing] checks skipped: a build without --enable-fault-injection (fault_injection.sh checks that it refuses [testing])"
fi

# malformed lists: usage errors before anything is loaded
for arg in x 1,,2 -1 64 "1 2" 1,; do
  "$SP" prove -c "$T/three.ini" --params "$T/p/circuit.params" --out "$T/u.proofs" \
    --device "$arg" "$@" >"$T/u.out" 2>"$T/u.err"
  rc=$?
  [ "$rc" -eq 2 ] || fail "--device '$arg': exit status $rc, expected 2"
  grep -q "^sealprov prove: error: --device '$arg': not a list of device indexes" "$T/u.err" ||
    { cat "$T/u.err"; fail "--device '$arg': message"; }
done

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "prove --device: all checks passed"
