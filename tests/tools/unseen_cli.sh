#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# unseen_cli.sh -- [provider] unseen_gpus through the module and the CLI, as a sealing
# daemon's child started with CUDA_VISIBLE_DEVICES=0 opens one INI written for the whole
# host: the GPU sections it cannot see (made-up UUID and PCI id here, which no host has)
# are left out, named by `sealprov check-config` and `sealprov devices` (table and
# --json), and its CPU section proves; without the key the same INI fails; with only
# unseen sections open fails naming CUDA_VISIBLE_DEVICES and the sections; an ordinal
# is refused. A build without CUDA refuses cuda sections (UNSUPPORTED) before any of
# this: SKIP there (tests/runtime/test_child covers the rules on every build).
set -u
: "${top_builddir:?run through make check}"
: "${SEALPROV_PLUGIN:?SEALPROV_PLUGIN is not set (make check sets it)}"
SP="$top_builddir/tools/sealprov"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/sp_unseen_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
has() { # FILE TEXT: FILE holds TEXT (a fixed string)
  grep -qF -- "$2" "$1" || { cat "$1"; fail "no \"$2\" in $(basename "$1")"; }
}

X=uuid=GPU-0badc0de-0000-1111-2222-333333333333
Y=pci=ffff:ff:1f.7
body() {
  cat <<INI
[gpuX]
type = cuda
device = $X
[cpu0]
type = cpu
threads = 1
[gpuY]
type = cuda
device = $Y
INI
}
{ printf '[provider]\nunseen_gpus = skip\n'; body; } >"$T/host.ini"
body >"$T/plain.ini"

export CUDA_VISIBLE_DEVICES=0
"$SP" check-config -c "$T/host.ini" >"$T/check.out" 2>&1
rc=$?
if grep -q "has no CUDA engine" "$T/check.out"; then
  echo "SKIP: this build has no CUDA engine (cuda sections are UNSUPPORTED before unseen_gpus)"
  exit 77
fi
[ "$rc" -eq 0 ] || fail "check-config with unseen_gpus = skip: exit $rc"
cat "$T/check.out"
has "$T/check.out" "host.ini: OK, 1 device, 2 sections skipped"
has "$T/check.out" "skipped [gpuX] device = $X: this process does not see that GPU (CUDA_VISIBLE_DEVICES=0; [provider] unseen_gpus = skip)"
has "$T/check.out" "skipped [gpuY] device = $Y: this process does not see that GPU"

"$SP" devices --json -c "$T/host.ini" >"$T/devices.json" 2>"$T/devices.err" ||
  { cat "$T/devices.err"; fail "devices --json"; }
has "$T/devices.json" '"devices": [{"index": 0, "section": "cpu0", "type": "cpu"'
has "$T/devices.json" "\"skipped\": [{\"section\": \"gpuX\", \"selector\": \"$X\"}, {\"section\": \"gpuY\", \"selector\": \"$Y\"}]}"

# the CPU section proves: a tiny job through the table the child got
"$SP" setup --constraints 64 --inputs 2 --partitions 2 --seed 5 --out "$T/p" >"$T/setup.out" 2>&1 ||
  { cat "$T/setup.out"; fail "sealprov setup"; }
printf '[provider]\nunseen_gpus = skip\nparams_subgroup_check = false\n' >"$T/prove.ini"
body >>"$T/prove.ini"
"$SP" prove -c "$T/prove.ini" --params "$T/p/circuit.params" --out "$T/proofs" \
  "$T/p/partition-00.spa" "$T/p/partition-01.spa" >"$T/prove.out" 2>&1 ||
  { cat "$T/prove.out"; fail "prove on what the child kept"; }
[ "$(wc -c <"$T/proofs" 2>/dev/null)" = 384 ] || fail "prove wrote no 2 proofs"
"$SP" verify -c "$T/prove.ini" --vk "$T/p/circuit.vk" --proofs "$T/proofs" \
  "$T/p/partition-00.spa" "$T/p/partition-01.spa" >"$T/verify.out" 2>&1 ||
  { cat "$T/verify.out"; fail "the proofs do not verify"; }

# without the key (error, the default): a listed GPU that is not there fails open
"$SP" check-config -c "$T/plain.ini" >"$T/plain.out" 2>&1 && fail "check-config without unseen_gpus passed"
has "$T/plain.out" "plain.ini:3: [gpuX] device = \"$X\": GPU not present"
has "$T/plain.out" "(CUDA_VISIBLE_DEVICES=0 limits what it sees)"

# every section unseen
printf '[provider]\nunseen_gpus = skip\n[gpuX]\ntype = cuda\ndevice = %s\n' "$X" >"$T/none.ini"
"$SP" check-config --json -c "$T/none.ini" >"$T/none.json" 2>"$T/none.err" && fail "all skipped passed"
has "$T/none.json" '"ok": false'
has "$T/none.json" "none.ini:2: [provider] unseen_gpus = \\\"skip\\\": every device section names a GPU this process does not see, so it has no device: [gpuX] device = \\\"$X\\\""
has "$T/none.json" "CUDA_VISIBLE_DEVICES=0"

# an ordinal means another GPU in each child: refused with skip
printf '[provider]\nunseen_gpus = skip\n[gpu0]\ntype = cuda\ndevice = 0\n' >"$T/ord.ini"
"$SP" check-config -c "$T/ord.ini" >"$T/ord.out" 2>&1 && fail "an ordinal with skip passed"
has "$T/ord.out" "ord.ini:5: [gpu0] device = \"0\": an ordinal cannot name a GPU with [provider] unseen_gpus = skip (line 2)"

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "unseen_gpus: all CLI checks passed"
