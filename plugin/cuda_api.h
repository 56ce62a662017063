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

#ifdef __cplusplus
}
#endif
#endif
