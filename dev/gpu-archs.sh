#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# dev/gpu-archs.sh -- the compute capabilities of the GPUs nvidia-smi lists, as a
# --with-cuda-arch list ("90", "86,90"); nothing (and exit 0) without nvidia-smi or a
# GPU. dev/run and the GPU scripts (gpu-check, gpu-stress, gpu-throughput, soak) build
# for their machine with it: configure's default, every architecture from sm_80 up,
# takes 5-7 times as long to build (docs/PERFORMANCE.md, "Checked on the GPU").
nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' .' |
  grep -E '^[0-9]+$' | sort -un | paste -sd, -
