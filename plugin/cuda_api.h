/* cuda_api.h -- the C boundary of the CUDA code that the module's C files call
 * (device enumeration for config; the engine itself is behind engine.h). Every
 * function returns a sealprov_status and catches everything: nothing escapes. */
#ifndef SEALPROV_CUDA_API_H
#define SEALPROV_CUDA_API_H

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

#ifdef __cplusplus
}
#endif
#endif
