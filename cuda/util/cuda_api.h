/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cuda_api.h -- the CUDA backend's own boundary between its C code (cuda/backend/) and
 * the CUDA runtime code that is not a kernel: device enumeration and binding (the
 * subgroup checker is subgroup/subgroup.h's, the direct load points/points.h's).
 * Nothing outside cuda/ (and the developer kit) includes it: the module reaches all of
 * it through the backend table (engine.h, sp_backend_cuda). Every function returns a sealprov_status and catches everything:
 * nothing escapes. */
#ifndef SEALPROV_CUDA_API_H
#define SEALPROV_CUDA_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/device.h" /* sp_gpu_info */

#ifdef __cplusplus
extern "C" {
#endif

/* Lists the GPUs this process can see. Without a driver or GPU: OK with *count = 0.
 * Does not change the calling thread's current device. */
int sp_cuda_enumerate(sp_gpu_info *out, int cap, int *count, char *err, size_t errlen);

/* For the parameter loader (cuda/backend/load_service.c; also declared in sp_gpu.h):
 * binds the calling thread to `ordinal` (cudaSetDevice, confirmed by cudaGetDevice). The
 * backend calls it only on a thread of its own, so no host thread's current device
 * changes; the loader's GPU subgroup checker is subgroup/subgroup.h's. */
int sp_gpu_bind(int ordinal, int *confirmed, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
