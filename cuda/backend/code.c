/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* code.c -- does this module carry code a GPU can run? Asked once per device, at its
 * first worker's bind (engine_cuda.c), before any kernel: a GPU the build has no code
 * for is refused by open() with a message that names the configure option, never by a
 * kernel failing in the middle of a job.
 *
 * The answer comes from the CUDA runtime (sp_gpu_code_check: cudaFuncGetAttributes on a
 * kernel of the module), which applies the real rules: a binary runs on its own
 * architecture and on later minor versions of the same major one (sm_80 code runs on
 * 8.6 and 8.9), PTX is compiled by the driver for any GPU of its architecture or later.
 * What the build has (configure's SP_CUDA_ARCHS and SP_CUDA_PTX_ARCH) only goes into
 * the messages and tells a binary from a JIT-compiled PTX in devices(). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/engine_internal.h"

#if !defined(SP_CUDA_ARCHS) || !defined(SP_CUDA_PTX_ARCH)
#error "configure's config.h names a CUDA build's device code (SP_CUDA_ARCHS, SP_CUDA_PTX_ARCH)"
#endif

void cuda_code_built(char *out, size_t len) {
  size_t off = 0;
  out[0] = '\0';
  const char *p = SP_CUDA_ARCHS;
  while (*p && off < len) {
    size_t n = strcspn(p, ",");
    off += (size_t)snprintf(out + off, len - off, "%ssm_%.*s", off ? ", " : "", (int)n, p);
    p += n;
    if (*p == ',') p++;
  }
  if (SP_CUDA_PTX_ARCH > 0 && off < len)
    off += (size_t)snprintf(out + off, len - off, "%sPTX compute_%d", off ? "; " : "",
                            SP_CUDA_PTX_ARCH);
  if (off == 0) snprintf(out, len, "(unknown: built without configure)");
}

/* Is a binary of architecture v (86, 90; "90a" counts as 90) in the build's list? */
static bool built_binary(int v) {
  const char *p = SP_CUDA_ARCHS;
  while (*p) {
    char *end;
    long a = strtol(p, &end, 10);
    if (end != p && a == v) return true;
    p += strcspn(p, ",");
    if (*p == ',') p++;
  }
  return false;
}

int cuda_code_check(cuda_dev *d, char *err, size_t errlen) {
  int bin = 0, ptx = 0;
  char why[200] = "";
  int st = sp_gpu_code_check(&bin, &ptx, why, sizeof why);
  char cc[32];
  if (d->cc_major > 0)
    snprintf(cc, sizeof cc, "compute capability %d.%d", d->cc_major, d->cc_minor);
  else
    snprintf(cc, sizeof cc, "compute capability unknown");
  if (st == SEALPROV_OK) {
    if (built_binary(bin))
      snprintf(d->code, sizeof d->code, "sm_%d", bin);
    else
      snprintf(d->code, sizeof d->code, "compute_%d (JIT)", ptx);
    return SEALPROV_OK;
  }
  char built[160];
  cuda_code_built(built, sizeof built);
  if (st != SEALPROV_ERR_UNSUPPORTED) {
    snprintf(err, errlen,
             "cuda device [%s] (%s, %s): cannot ask the CUDA runtime what code it "
             "runs: %s",
             d->section, d->name[0] ? d->name : "?", cc, why);
    return st;
  }
  char add[64] = "";
  if (d->cc_major > 0) snprintf(add, sizeof add, "%d%d", d->cc_major, d->cc_minor);
  snprintf(err, errlen,
           "cuda device [%s] (%s, %s): this module has no code it can run (%s); it was built "
           "for %s; rebuild with ../configure --with-cuda-arch=%s%s%s (or leave the option "
           "out: every architecture the CUDA toolkit knows from sm_80 up)%s",
           d->section, d->name[0] ? d->name : "?", cc, why, built, SP_CUDA_ARCHS,
           SP_CUDA_ARCHS[0] && add[0] ? "," : "", add[0] ? add : "NN",
           strstr(why, "Ptx") != NULL || strstr(why, "PTX") != NULL
               ? ", or update the NVIDIA driver (its PTX compiler is older than this build's PTX)"
               : "");
  return SEALPROV_ERR_UNSUPPORTED;
}

/* sp_engine_ops.device_code: what the first bind found. */
void cuda_device_code(void *dev, char *out, size_t len) {
  const cuda_dev *d = dev;
  snprintf(out, len, "%s", d->code);
}
