#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# `sealprov devices` on a faked topology (tests/runtime/fake_sysfs.sh through
# SEALPROV_SYSFS_ROOT): each device's NUMA node, bound CPUs and PCIe link, in the table
# and in --json; the warning for a node none of whose CPUs this process may use; and
# [provider] numa = off.
set -eu
: "${SEALPROV_PLUGIN:?SEALPROV_PLUGIN is not set (make check sets it)}"
sealprov=${top_builddir:?}/tools/sealprov
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# node0 = the CPUs this process may use, node1 = CPUs no machine here has
allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
[ -n "$allowed" ] || { echo "SKIP: no Cpus_allowed_list in /proc/self/status"; exit 77; }
ncpu=$(nproc)
sh "${top_srcdir:?}/tests/runtime/fake_sysfs.sh" "$tmp/sys" "$allowed" 1000-1023
cat > "$tmp/topo.ini" <<'INI'
[provider]
log_level = warn
[near]
type = cpu
numa_node = 0
workers = 2
[far]
type = cpu
numa_node = 1
[any]
type = cpu
INI

SEALPROV_SYSFS_ROOT=$tmp/sys "$sealprov" devices --wide -c "$tmp/topo.ini" > "$tmp/t.out" 2> "$tmp/t.err" \
  || { cat "$tmp/t.out" "$tmp/t.err"; fail "devices"; }
cat "$tmp/t.out" "$tmp/t.err"
head -1 "$tmp/t.out" | grep -q ' pci  *numa  *cpus  *pcie  *ordinal ' || fail "header"
# columns (--wide): index section type name uuid pci numa cpus pcie ...
row() { awk -v s="$1" '$2 == s { print $7 ":" $8 ":" $9 }' "$tmp/t.out"; }
[ "$(row near)" = "0:$ncpu:-" ] || fail "near: $(row near), want 0:$ncpu:-"
[ "$(row far)" = "1:-:-" ] || fail "far: $(row far), want 1:-:-"
[ "$(row any)" = "-:-:-" ] || fail "any: $(row any), want -:-:-"
grep -q "device 1 \[far\]: NUMA node 1's CPUs (1000-1023) are none of the CPUs this process may use ($allowed): not bound" \
  "$tmp/t.err" || fail "warning for far"
[ "$(grep -c 'device 1 \[far\]' "$tmp/t.err")" = 1 ] || fail "one warning per device"

SEALPROV_SYSFS_ROOT=$tmp/sys "$sealprov" devices -c "$tmp/topo.ini" --json > "$tmp/j.out" 2> /dev/null \
  || fail "devices --json"
cat "$tmp/j.out"
grep -q "\"section\": \"near\".*\"numa_node\": 0, \"bound_cpus\": $ncpu, \"pcie\": {\"gen\": 0, \"width\": 0, \"max_gen\": 0, \"max_width\": 0}, \"compute_capability\": -1, \"code\": \"\", \"device_memory\": 0, \"largest_partition\": {\"resident\": -1, \"tables\": -1, \"streamed\": -1}}, {\"index\": 1" \
  "$tmp/j.out" || fail "json near"
grep -q '"section": "far".*"numa_node": 1, "bound_cpus": 0,' "$tmp/j.out" || fail "json far"
grep -q '"section": "any".*"numa_node": -1, "bound_cpus": 0,' "$tmp/j.out" || fail "json any"
if command -v python3 > /dev/null 2>&1; then
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/j.out" || fail "json does not parse"
fi

# numa = off: the node is shown, nothing is bound, nothing to warn about
sed 's/^log_level = warn$/log_level = warn\nnuma = off/' "$tmp/topo.ini" > "$tmp/off.ini"
grep -q '^numa = off$' "$tmp/off.ini" || fail "off.ini"
SEALPROV_SYSFS_ROOT=$tmp/sys "$sealprov" devices --wide -c "$tmp/off.ini" > "$tmp/o.out" 2> "$tmp/o.err" \
  || fail "devices numa = off"
cat "$tmp/o.out" "$tmp/o.err"
[ "$(awk '$2 == "near" { print $7 ":" $8 }' "$tmp/o.out")" = "0:-" ] || fail "numa = off: near bound"
[ ! -s "$tmp/o.err" ] || fail "numa = off: unexpected messages"

# one node: no node, no binding, no message
sh "$top_srcdir/tests/runtime/fake_sysfs.sh" "$tmp/one" single
SEALPROV_SYSFS_ROOT=$tmp/one "$sealprov" devices --wide -c "$tmp/topo.ini" > "$tmp/s.out" 2> "$tmp/s.err" \
  || fail "devices, one node"
[ "$(awk 'NR > 1 { printf "%s:%s ", $7, $8 }' "$tmp/s.out")" = "-:- -:- -:- " ] || fail "one node: $(cat "$tmp/s.out")"
[ ! -s "$tmp/s.err" ] || fail "one node: unexpected messages"

# a bad value of the knob is ignored with a warning (the real /sys is read)
SEALPROV_SYSFS_ROOT=relative "$sealprov" devices -c "$tmp/topo.ini" > /dev/null 2> "$tmp/r.err" \
  || fail "devices, relative root"
grep -q 'SEALPROV_SYSFS_ROOT is not an absolute path under 512 bytes: ignored, topology read from /sys' \
  "$tmp/r.err" || { cat "$tmp/r.err"; fail "relative root: no warning"; }
# once per open, whole: the module's threads log at once, and the CLI keeps lines apart
[ "$(grep -c 'SEALPROV_SYSFS_ROOT' "$tmp/r.err")" = 1 ] \
  || { cat "$tmp/r.err"; fail "relative root: not one whole warning"; }
# a module built before ABI 1.2 writes smaller entries: the CLI spreads them out and
# shows the topology as unknown (tests/abi/old_module.c)
old="$top_builddir/tests/abi/.libs/old_module.so"
"$sealprov" --plugin "$old" devices -c "$tmp/topo.ini" --json > "$tmp/old.out" \
  || fail "devices with a 1.1 module"
cat "$tmp/old.out"
grep -q '"section": "old0", .*"workers": 1, .*"memory_limit": 1000, "numa_node": -1, "bound_cpus": 0, "pcie": {"gen": 0, "width": 0, "max_gen": 0, "max_width": 0}, "compute_capability": -1, "code": ""}, {"index": 1, "section": "old1", .*"workers": 2, .*"memory_limit": 1001, "numa_node": -1, "bound_cpus": 0,' \
  "$tmp/old.out" || fail "1.1 module: entries not read at its size"
echo "PASS: topo_cli.sh"
