#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# On a machine with 2+ GPUs (the `device` tool, carry ['.dist', '.deb']):
#   sh dev/gpu-stress.sh [constraints] [partitions]
# 1. selection: with CUDA_VISIBLE_DEVICES=1,0 (runtime ordinals swapped), INI sections
#    that name physical GPU 1 by UUID and GPU 0 by PCI id must resolve to them;
# 2. stress: 4 host threads x 3 jobs on both GPUs under that environment; every
#    proof verified. Logs in $OUT.
set -u
n=${1:-262144}; parts=${2:-5}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
. dev/device-env.sh
if [ ! -x /tmp/sp/sealprov-0.1.0/tools/sealprov ]; then
  rm -rf /tmp/sp && mkdir -p /tmp/sp && tar xzf .dist/sealprov-*.tar.gz -C /tmp/sp
  # device code for this machine's GPUs only (configure's default builds every architecture)
  gpu_archs=$(sh dev/gpu-archs.sh)
  (cd /tmp/sp/sealprov-0.1.0 && ./configure --with-cuda ${gpu_archs:+--with-cuda-arch=$gpu_archs} && make -j"$(nproc)") > "$OUT/build.log" 2>&1 \
    || { tail -40 "$OUT/build.log"; exit 1; }
fi
S=/tmp/sp/sealprov-0.1.0
cli="$S/tools/sealprov --plugin $S/plugin/.libs/sealprov.so"
nvidia-smi --query-gpu=index,uuid,pci.bus_id --format=csv,noheader | tee "$OUT/gpus.csv"
uuid1=$(sed -n 2p "$OUT/gpus.csv" | cut -d, -f2 | tr -d ' ')
pci0=$(sed -n 1p "$OUT/gpus.csv" | cut -d, -f3 | tr -d ' ' | sed 's/^0000//')
printf '[provider]\nparams_subgroup_check = false\n\n[phys1]\ntype = cuda\ndevice = uuid=%s\n\n[phys0]\ntype = cuda\ndevice = pci=%s\n' \
  "$uuid1" "$pci0" > /tmp/sp/sel.ini
cat /tmp/sp/sel.ini
echo "== devices with CUDA_VISIBLE_DEVICES=1,0"
CUDA_VISIBLE_DEVICES=1,0 $cli devices --wide -c /tmp/sp/sel.ini | tee "$OUT/devices-swapped.txt"
echo "== setup $parts x $n"
$cli setup --constraints "$n" --inputs 16 --partitions "$parts" --out /tmp/sp/job > "$OUT/setup.txt" 2>&1 || { tail "$OUT/setup.txt"; exit 1; }
echo "== stress, 4 threads x 3 jobs, CUDA_VISIBLE_DEVICES=1,0"
CUDA_VISIBLE_DEVICES=1,0 SEALPROV_TIMELINE="$OUT/timeline-stress.txt" SEALPROV_STATS="$OUT/stats-stress.txt" \
  $cli stress -c /tmp/sp/sel.ini --params /tmp/sp/job/circuit.params --threads 4 --jobs-per-thread 3 \
  /tmp/sp/job/partition-*.spa 2>&1 | tee "$OUT/stress.txt"
echo "stress rc=$?"
