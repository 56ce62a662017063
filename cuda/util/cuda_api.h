/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cuda_api.h -- the CUDA backend's own boundary between its C code (cuda/backend/) and
 * the CUDA runtime code that is not a kernel: device enumeration, binding, the
 * subgroup checker and the direct load. Nothing outside cuda/ (and the developer kit)
 * includes it: the module reaches all of it through the backend table (engine.h,
 * sp_backend_cuda). Every function returns a sealprov_status and catches everything:
 * nothing escapes. */
#ifndef SEALPROV_CUDA_API_H
#define SEALPROV_CUDA_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/device.h"       /* sp_gpu_info */
#include "formats/srs_devcopy.h" /* sp_srs_devcopy, sp_srs_bad */

#ifdef __cplusplus
extern "C" {
#endif

/* Lists the GPUs this process can see. Without a driver or GPU: OK with *count = 0.
 * Does not change the calling thread's current device. */
int sp_cuda_enumerate(sp_gpu_info *out, int cap, int *count, char *err, size_t errlen);

/* For the parameter loader (cuda/backend/load_service.c; also declared in sp_gpu.h):
 * binds the calling thread to `ordinal` (cudaSetDevice, confirmed by cudaGetDevice),
 * and a GPU subgroup checker with the shape of the loader's hook (srs.h
 * sp_srs_check_fn). The backend calls them only on a thread of its own that is bound to
 * the ordinal first, so no host thread's current device changes and no other GPU is
 * touched. */
typedef struct sp_cuda_checker sp_cuda_checker;
int sp_gpu_bind(int ordinal, int *confirmed, char *err, size_t errlen);
int sp_cuda_checker_create(int ordinal, sp_cuda_checker **out, char *err, size_t errlen);
void sp_cuda_checker_destroy(sp_cuda_checker *c);
int sp_cuda_checker_run(void *checker, bool g2, const void *pts, size_t n, size_t *first_bad,
                        char *err, size_t errlen);

/* ---- direct load (issue 14): the proving vectors go from the file straight onto the
 * CUDA devices, decoded and checked there, with no host copy (cuda/points/points.cu). The
 * device copies and a rejected point are formats/srs_devcopy.h's types. */

/* Frees every device array (any thread: switches to each ordinal and back). */
void sp_cuda_devcopy_free(struct sp_srs_devcopy *c);

/* The loader's side of a direct load (the callbacks of srs.h's sp_srs_sink). Created on
 * a thread bound to ordinals[0]; every device in ordinals gets every vector decoded into
 * its own copy, and chunk i's subgroup checks run on device i mod ndev. memory_limit[i]
 * (0 = the device's memory) bounds what a copy may take; begin() also leaves the
 * engine's working memory for the set's domain free (else it declines: host load). */
typedef struct sp_cuda_dload sp_cuda_dload;
int sp_cuda_dload_create(const int *ordinals, const uint64_t *memory_limit, unsigned ndev,
                         bool subgroup_check, sp_cuda_dload **out, char *err, size_t errlen);
/* Waits for everything in flight and frees what was not taken. */
void sp_cuda_dload_destroy(sp_cuda_dload *l);
/* After a successful load: the device copies (the caller owns them), or NULL. */
struct sp_srs_devcopy *sp_cuda_dload_take(sp_cuda_dload *l);
/* One line on why the last begin() declined, or "" (for the log). */
const char *sp_cuda_dload_declined(const sp_cuda_dload *l);
/* Sink callbacks (srs.h sp_srs_sink; user = the sp_cuda_dload). */
int sp_cuda_dload_begin(void *user, uint64_t bytes, unsigned log_domain, bool *take, size_t *chunk,
                        char *err, size_t errlen);
int sp_cuda_dload_vector(void *user, int vec, size_t n, char *err, size_t errlen);
int sp_cuda_dload_buffer(void *user, size_t bytes, void **buf, struct sp_srs_bad *bad, char *err,
                         size_t errlen);
int sp_cuda_dload_submit(void *user, int vec, size_t index0, size_t n, uint64_t off0,
                         struct sp_srs_bad *bad, char *err, size_t errlen);
int sp_cuda_dload_finish(void *user, struct sp_srs_bad *bad, char *err, size_t errlen);
/* Bytes of a read buffer (the most a chunk may have). */
size_t sp_cuda_dload_chunk_bytes(const sp_cuda_dload *l);
/* The loader's sink (srs.h sp_srs_sink) made of the callbacks above on l. Implemented
 * in cuda/backend/ (C: it needs srs.h). A caller may lower out->chunk_bytes before the
 * load: the read buffers are then that small (tests make many chunks of a small file
 * so; the default is 256 MiB, or the file's size when smaller). */
struct sp_srs_sink;
struct sp_srs;
void sp_cuda_dload_sink(sp_cuda_dload *l, struct sp_srs_sink *out);
/* After a load whose sink took the vectors: srs gets l's device copies and their free
 * function; false (srs->devcopy NULL) when they could not be had. */
bool sp_cuda_dload_adopt(sp_cuda_dload *l, struct sp_srs *srs);

#ifdef __cplusplus
}
#endif
#endif
