/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* subgroup.h -- the subgroup checker's C API (subgroup.cu), the parameter loader's hook
 * (formats/srs.h, sp_srs_check_fn). The device functions are subgroup.cuh. */
#ifndef SEALPROV_CUDA_SUBGROUP_H
#define SEALPROV_CUDA_SUBGROUP_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Subgroup checks of decoded affine points (host memory, the module's layout:
 * g1_affine_t, or g2_affine_t when g2; Montgomery form) on device `ordinal`, for the
 * parameter loader: on the curve, and in G1 (phi(P) == -[x^2] P) or G2 (psi(P) ==
 * [x] P), the CPU's tests (g1_affine_in_subgroup / g2_affine_in_subgroup); infinity
 * passes. A checker makes its streams and three pinned chunk buffers (96 MiB each,
 * host and device) once: host copies, uploads and checks overlap (cudaHostAlloc of
 * 288 MiB is not free, so a load keeps one checker). sp_cuda_checker_run has the shape
 * of the loader's hook (srs.h, sp_srs_check_fn): pass it as `check` and the checker as
 * `check_user`; *first_bad gets the lowest failing index, or n if every point passes.
 * Calls on one checker are serialised (a mutex); any thread may make them: it switches
 * the thread to `ordinal` for the call and back. Returns OK, DEVICE, DEVICE_MEMORY (a
 * buffer could not be had) or INVALID_ARGUMENT. */
typedef struct sp_cuda_checker sp_cuda_checker;
int sp_cuda_checker_create(int ordinal, sp_cuda_checker **out, char *err, size_t errlen);
void sp_cuda_checker_destroy(sp_cuda_checker *c);
int sp_cuda_checker_run(void *checker, bool g2, const void *pts, size_t n, size_t *first_bad,
                        char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
