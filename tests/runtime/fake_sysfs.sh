#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# fake_sysfs.sh DIR [NODE0_CPUS [NODE1_CPUS [NODE2_CPUS]]] -- writes a fake sysfs tree
# for SEALPROV_SYSFS_ROOT (plugin/runtime/topo.h): a host with 2 NUMA nodes (3 when NODE2_CPUS
# is given) and 4 GPUs, as a two-socket sealing server shows them:
#   node0  cpulist NODE0_CPUS (default 0-15,32-47)
#   node1  cpulist NODE1_CPUS (default 16-31,48-63)
#   node3  no cpulist entry at all (a memory-only node: HBM or CXL; never counted)
#   0000:17:00.0  numa_node 0, 32.0 GT/s x16 of 32.0 GT/s x16 (gen5 x16)
#   0000:3d:00.0  numa_node 0, 16.0 GT/s x8 of 32.0 GT/s x16 (a slot running slower)
#   0000:99:00.0  numa_node 1, 32.0 GT/s PCIe x16 (the newer kernels' text)
#   0000:bb:00.0  numa_node -1 and no link files (what many VMs show)
# With "single" as NODE0_CPUS: one node (node0 = 0-63) and the same GPUs.
# The tests write it at run time (tests/runtime/test_topo.c, topo_cli.sh), and
# dev/gpu-throughput.sh --dry-run uses it; `SEALPROV_SYSFS_ROOT=DIR sealprov devices`
# shows it.
set -eu
dir=${1:?usage: fake_sysfs.sh DIR [NODE0_CPUS [NODE1_CPUS [NODE2_CPUS]]]}
n0=${2:-0-15,32-47}
n1=${3:-16-31,48-63}
n2=${4:-}
rm -rf "$dir"
nodes="$dir/devices/system/node"
mkdir -p "$nodes/node0" "$nodes/node3"
if [ "$n0" = single ]; then
  echo 0-63 > "$nodes/node0/cpulist"
else
  echo "$n0" > "$nodes/node0/cpulist"
  mkdir -p "$nodes/node1"
  echo "$n1" > "$nodes/node1/cpulist"
  if [ -n "$n2" ]; then
    mkdir -p "$nodes/node2"
    echo "$n2" > "$nodes/node2/cpulist"
  fi
fi
# files the kernel has there too, which the reader must skip
echo 0 > "$nodes/possible"; echo 0 > "$nodes/online"
gpu() { # gpu BUS_ID NUMA_NODE [CUR_SPEED CUR_WIDTH MAX_SPEED MAX_WIDTH]
  d="$dir/bus/pci/devices/$1"
  mkdir -p "$d"
  echo "$2" > "$d/numa_node"
  echo 0x10de > "$d/vendor"
  [ $# -gt 2 ] || return 0
  echo "$3" > "$d/current_link_speed"; echo "$4" > "$d/current_link_width"
  echo "$5" > "$d/max_link_speed"; echo "$6" > "$d/max_link_width"
}
gpu 0000:17:00.0 0 "32.0 GT/s" 16 "32.0 GT/s" 16
gpu 0000:3d:00.0 0 "16.0 GT/s" 8 "32.0 GT/s" 16
gpu 0000:99:00.0 1 "32.0 GT/s PCIe" 16 "32.0 GT/s PCIe" 16
gpu 0000:bb:00.0 -1
