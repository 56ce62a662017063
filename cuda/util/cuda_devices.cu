/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cuda_devices.cu -- GPU enumeration for the INI resolver (plugin/runtime/resolve.c).
 *
 * Only property queries: no cudaSetDevice, no allocation, no kernel. A device's
 * properties do not need a current device, and the thread calling this (the host's
 * thread inside provider open) must come out with the current device it had
 * (docs/design.md rule 2: only workers bind, and each binds once). The properties reported
 * here -- UUID and PCI bus id -- are what the INI selectors are matched against, so the
 * match holds whatever CUDA_VISIBLE_DEVICES / CUDA_DEVICE_ORDER the host started with;
 * this file never reads or writes either variable.
 *
 * The runtime API reports errors by value and throws nothing, so no C++ exception can
 * cross this extern "C" boundary.
 */
#include <cuda_runtime.h>

#include <stdio.h>
#include <string.h>

#include "cuda_api.h"
#include "sealprov.h"

static void put_err(char *err, size_t errlen, const char *what, cudaError_t e) {
  if (err && errlen)
    snprintf(err, errlen, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

/* "GPU-" + 8-4-4-4-12 lower-case hex, the form nvidia-smi -L prints. */
static void format_uuid(const cudaUUID_t &u, char out[48]) {
  static const char hex[] = "0123456789abcdef";
  size_t o = 0;
  memcpy(out, "GPU-", 4);
  o = 4;
  for (int i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out[o++] = '-';
    unsigned char b = (unsigned char)u.bytes[i];
    out[o++] = hex[b >> 4];
    out[o++] = hex[b & 15];
  }
  out[o] = '\0';
}

extern "C" int sp_cuda_enumerate(sp_gpu_info *out, int cap, int *count, char *err, size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (!count || cap < 0 || (cap > 0 && !out)) {
    if (err && errlen) snprintf(err, errlen, "sp_cuda_enumerate: bad argument");
    return SEALPROV_ERR_INVALID_ARGUMENT;
  }
  *count = 0;
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || e == cudaErrorStubLibrary) {
    /* No GPU, or no usable driver (none installed: the static runtime then finds only
     * the stub or nothing): a CPU-only host, not a failure. Clear the runtime's
     * last-error slot so no later, unrelated check trips over it. */
    (void)cudaGetLastError();
    return SEALPROV_OK;
  }
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    put_err(err, errlen, "cudaGetDeviceCount", e);
    return SEALPROV_ERR_DEVICE;
  }
  int filled = 0;
  for (int i = 0; i < n && filled < cap; i++) {
    cudaDeviceProp p;
    memset(&p, 0, sizeof p);
    e = cudaGetDeviceProperties(&p, i);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      char what[64];
      snprintf(what, sizeof what, "cudaGetDeviceProperties(%d)", i);
      put_err(err, errlen, what, e);
      return SEALPROV_ERR_DEVICE;
    }
    sp_gpu_info *g = &out[filled++];
    memset(g, 0, sizeof *g);
    g->ordinal = i;
    /* p.name is 256 bytes and NUL-terminated by the runtime; keep what fits. */
    snprintf(g->name, sizeof g->name, "%.*s", (int)(sizeof g->name - 1), p.name);
    format_uuid(p.uuid, g->uuid);
    /* CUDA reports no PCI function; a GPU is function 0. */
    snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "%04x:%02x:%02x.0", (unsigned)p.pciDomainID,
             (unsigned)p.pciBusID, (unsigned)p.pciDeviceID);
    g->total_memory = (uint64_t)p.totalGlobalMem;
    g->cc_major = p.major;
    g->cc_minor = p.minor;
    g->sm_count = p.multiProcessorCount;
  }
  *count = filled;
  return SEALPROV_OK;
}
