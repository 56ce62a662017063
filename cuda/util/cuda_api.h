/* cuda_api.h -- the C boundary of the CUDA code that the module's C files call
 * (device enumeration for config; the engine itself is behind engine.h). Every
 * function returns a sealprov_status and catches everything: nothing escapes. */
#ifndef SEALPROV_CUDA_API_H
#define SEALPROV_CUDA_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_gpu_info {
  int ordinal;               /* CUDA runtime ordinal (as this process sees it) */
  char name[96];
  char uuid[48];             /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
  char pci_bus_id[24];       /* "0000:65:00.0" (lower-case hex) */
  uint64_t total_memory;
  int cc_major, cc_minor;
  int sm_count;
} sp_gpu_info;

/* Lists the GPUs this process can see. Without a driver or GPU: OK with *count = 0.
 * Does not change the calling thread's current device. */
int sp_cuda_enumerate(sp_gpu_info *out, int cap, int *count, char *err, size_t errlen);

/* For the parameter loader (module.c), from cuda/ (also declared in cuda/sp_gpu.h):
 * binds the calling thread to `ordinal` (cudaSetDevice, confirmed by cudaGetDevice),
 * and a GPU subgroup checker with the shape of the loader's hook (srs.h
 * sp_srs_check_fn). The module calls them only on a thread of its own that is bound to
 * the ordinal first, so no host thread's current device changes and no other GPU is
 * touched. */
typedef struct sp_cuda_checker sp_cuda_checker;
int sp_gpu_bind(int ordinal, int *confirmed, char *err, size_t errlen);
int sp_cuda_checker_create(int ordinal, sp_cuda_checker **out, char *err, size_t errlen);
void sp_cuda_checker_destroy(sp_cuda_checker *c);
int sp_cuda_checker_run(void *checker, bool g2, const void *pts, size_t n, size_t *first_bad,
                        char *err, size_t errlen);

/* ---- direct load (issue 14): the proving vectors go from the file straight onto the
 * CUDA devices, decoded and checked there, with no host copy (cuda/load.cu).
 *
 * A device copy of a parameter set's five proving vectors (h, l, a, b_g1, b_g2), in the
 * engine's resident layout (the host decoder's g1_affine_t / g2_affine_t bytes,
 * Montgomery affine), one per device. Owned by the sp_srs it belongs to (srs.h:
 * sp_srs.devcopy), freed with it through sp_cuda_devcopy_free. */
#define SP_DEVCOPY_MAX 16
typedef struct sp_srs_devcopy {
  unsigned ndev;
  int ordinal[SP_DEVCOPY_MAX];
  void *vec[SP_DEVCOPY_MAX][5];   /* NULL for an empty vector */
  size_t bytes[5];                /* per vector, the same on every device */
  uint64_t total_bytes;           /* per device */
  double upload_ms;               /* host wall time of the load's device work */
  double wait_ms;                 /* of which the reader waited for the devices (a
                                     buffer still in use, the last checks) */
} sp_srs_devcopy;
/* A point the device rejected: its vector (0..4), index, byte offset and its encoding as
 * read (the loader recomputes the reason on the CPU, so the message is the CPU
 * loader's). */
typedef struct sp_srs_bad {
  bool any;
  int vec;
  size_t index;
  uint64_t off;
  unsigned char enc[192];
} sp_srs_bad;

/* Frees every device array (any thread: switches to each ordinal and back). */
void sp_cuda_devcopy_free(struct sp_srs_devcopy *c);
/* Tests: copies vector vec (0..4) of device copy `dev` into host (c->bytes[vec] bytes). */
int sp_cuda_devcopy_download(const struct sp_srs_devcopy *c, unsigned dev, int vec, void *host,
                             char *err, size_t errlen);

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
int sp_cuda_dload_begin(void *user, uint64_t bytes, unsigned log_domain, bool *take,
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
 * in cuda/engine_cuda.c (C: it needs srs.h). */
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
