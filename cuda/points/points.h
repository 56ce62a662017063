/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* points.h -- the direct load's C API (points.cu): a .params file's proving vectors go
 * from the file straight onto the CUDA devices, decoded and checked there, with no host
 * copy. The loader (formats/srs.c) drives it through its sink (sp_srs_sink); the CUDA
 * backend (load_service.c) makes and adopts it. */
#ifndef SEALPROV_CUDA_POINTS_H
#define SEALPROV_CUDA_POINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/srs_devcopy.h" /* sp_srs_devcopy, sp_srs_bad */

#ifdef __cplusplus
extern "C" {
#endif

/* The device copies and a rejected point are formats/srs_devcopy.h's types. */

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
int sp_cuda_dload_begin(void *user, uint64_t bytes, unsigned log_domain, bool subgroup, bool *take,
                        size_t *chunk, char *err, size_t errlen);
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
