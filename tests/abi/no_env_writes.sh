#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Nothing in the module changes the process environment. CUDA reads
# CUDA_VISIBLE_DEVICES / CUDA_DEVICE_ORDER once per process: a module that set them
# from worker threads put every worker on GPU 0 in the field (docs/design.md, "Lessons").
# Devices are chosen by cudaSetDevice on each worker only.
set -eu
src=${top_srcdir:?top_srcdir is not set (make check sets it)}
hits=$(grep -rnE '(^|[^A-Za-z0-9_])(setenv|putenv|unsetenv|clearenv)[[:space:]]*\(' \
         "$src/plugin" "$src/cuda" \
         --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' --include='*.cpp' \
       || true)
if [ -n "$hits" ]; then
  echo "FAIL: the module must not change the environment:"
  echo "$hits"
  exit 1
fi
echo "no setenv/putenv/unsetenv/clearenv in plugin/ or cuda/"
