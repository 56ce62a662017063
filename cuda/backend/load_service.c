/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* load_service.c -- the CUDA backend's help with a .params load (engine.h,
 * sp_backend.load): subgroup checks on the first CUDA device, or the direct load of the
 * proving vectors onto every device, on a thread of the backend's own. */
#include <config.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/thread.h"
#include "base/util.h"
#include "engine/engine.h"
#include "formats/srs.h"
#include "util/cuda_api.h"
#include "subgroup/subgroup.h"
#include "points/points.h"
#include "backend/engine_cuda.h"

/* The size of the module's per-thread error detail (abi/module.h, SP_ERR_DETAIL_MAX):
 * a load's message reaches the host whole. */
#define SP_LOAD_ERR_MAX 1024

/* A load that uses the GPUs: on a module thread bound to the first CUDA device first
 * thing (design rule 2), so the host's calling thread keeps its own CUDA device (or
 * none). Two ways:
 *  - direct: every device of the provider is a CUDA device and params_residency = auto:
 *    the proving vectors go from the file straight onto every device (cuda/points/points.cu),
 *    decoded and checked there, with no host copy; the set is device_only. When a
 *    device has no room (sp_cuda_dload_begin declines) the load goes on as below.
 *  - host: the vectors are decoded into host memory and the subgroup checks of each
 *    chunk run on the first CUDA device (the checker hook); if that GPU cannot be had
 *    the checks run on the CPU, and the log says so. */
typedef struct gpu_load {
  const char *path;
  sp_srs_load_opts lo;
  int ordinal;
  const char *section;
  bool direct; /* try the direct load */
  int ordinals[SP_DEVCOPY_MAX];
  uint64_t limits[SP_DEVCOPY_MAX];
  unsigned ndev;
  sp_srs *srs;
  int st;
  char err[SP_LOAD_ERR_MAX];
} gpu_load;

static void *gpu_load_main(void *arg) {
  gpu_load *g = arg;
  int confirmed = -1;
  sp_cuda_checker *ck = NULL;
  sp_cuda_dload *dl = NULL;
  sp_srs_sink sink;
  bool taken = false;
  char why[512] = "";
  int bst = sp_gpu_bind(g->ordinal, &confirmed, why, sizeof why);
  if (bst == SEALPROV_OK && g->direct) {
    char derr[512] = "";
    if (sp_cuda_dload_create(g->ordinals, g->limits, g->ndev, g->lo.subgroup_check, &dl, derr,
                             sizeof derr) == SEALPROV_OK) {
      sp_cuda_dload_sink(dl, &sink);
      g->lo.sink = &sink;
      g->lo.sink_taken = &taken;
    } else {
      sp_log(SEALPROV_LOG_WARN, "srs_load %s: no direct load onto the GPUs (%s): host load",
             g->path, derr);
    }
  }
  if (bst == SEALPROV_OK && g->lo.subgroup_check)
    bst = sp_cuda_checker_create(g->ordinal, &ck, why, sizeof why);
  if (bst == SEALPROV_OK && g->lo.subgroup_check) {
    g->lo.check = sp_cuda_checker_run;
    g->lo.check_user = ck;
  } else if (g->lo.subgroup_check) {
    sp_log(SEALPROV_LOG_WARN,
           "srs_load %s: [%s] (CUDA ordinal %d) could not take the subgroup checks (%s): checking "
           "on the CPU",
           g->path, g->section, g->ordinal, why);
  }
  double t0 = sp_now_ms();
  g->st = sp_srs_load_ex(g->path, &g->lo, &g->srs, g->err, sizeof g->err);
  if (taken && (g->st == SEALPROV_ERR_DEVICE || g->st == SEALPROV_ERR_DEVICE_MEMORY)) {
    /* the GPUs failed (not the file): load it again on the host */
    char esc[SP_LOAD_ERR_MAX];
    sp_log(SEALPROV_LOG_WARN, "srs_load %s: the direct load onto the GPUs failed (%s): host load",
           g->path, sp_utf8_escape(g->err, esc, sizeof esc));
    sp_cuda_dload_destroy(dl);
    dl = NULL;
    taken = false;
    g->lo.sink = NULL;
    g->lo.sink_taken = NULL;
    g->st = sp_srs_load_ex(g->path, &g->lo, &g->srs, g->err, sizeof g->err);
  }
  double ms = sp_now_ms() - t0;
  if (g->st == SEALPROV_OK && taken) {
    if (!sp_cuda_dload_adopt(dl, g->srs)) {
      sp_srs_release(g->srs);
      g->srs = NULL;
      g->st = SEALPROV_ERR_NO_MEMORY;
      snprintf(g->err, sizeof g->err, "srs_load %s: out of host memory", g->path);
    } else {
      char list[128] = "";
      for (unsigned i = 0; i < g->ndev; i++) {
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s%d", i ? ", " : "", g->ordinals[i]);
      }
      bool skipped = g->lo.validation != NULL && g->lo.validation->skipped;
      sp_log(SEALPROV_LOG_INFO,
             "srs_load %s: direct load: %.2f GB of proving vectors decoded and checked (%s) on "
             "CUDA device(s) %s, resident there, no host copy; %.1f s",
             g->path, (double)g->srs->devcopy->total_bytes / 1e9,
             skipped                ? "on the curve; the subgroup checked earlier"
             : g->lo.subgroup_check ? "on the curve, in the subgroup"
                                    : "on the curve",
             list, ms / 1e3);
    }
  } else if (g->st == SEALPROV_OK && g->lo.sink && dl) {
    sp_log(SEALPROV_LOG_INFO, "srs_load %s: host load: %s", g->path,
           *sp_cuda_dload_declined(dl) ? sp_cuda_dload_declined(dl) : "the device loader declined");
  }
  sp_cuda_dload_destroy(dl);
  sp_cuda_checker_destroy(ck);
  return NULL;
}

/* The device that takes a load's GPU work: the first CUDA device of the INI (-1: none). */
static int load_check_device(const sp_load_request *req) {
  for (size_t i = 0; i < req->ndevices; i++)
    if (req->devices[i].type == SP_DEVICE_CUDA && req->devices[i].ordinal >= 0) return (int)i;
  return -1;
}

/* Whether a .params load may go straight onto the devices (why not: into why). */
static bool load_direct_ok(const sp_load_request *req, char *why, size_t whylen) {
  if (req->host_residency) {
    snprintf(why, whylen, "params_residency = host");
    return false;
  }
  if (req->ndevices == 0 || req->ndevices > SP_DEVCOPY_MAX) {
    snprintf(why, whylen, "%zu devices", req->ndevices);
    return false;
  }
  for (size_t i = 0; i < req->ndevices; i++)
    if (req->devices[i].type != SP_DEVICE_CUDA || req->devices[i].ordinal < 0) {
      snprintf(why, whylen, "device [%s] is not a CUDA device (it proves from host memory)",
               req->devices[i].section);
      return false;
    }
  return true;
}

int sp_cuda_load_params(const sp_load_request *req, sp_srs **out, bool *handled, char *err,
                        size_t errlen) {
  const char *what = "srs_load";
  const char *path = req->path;
  *handled = false;
  char why[256] = "";
  bool direct = load_direct_ok(req, why, sizeof why);
  int gdev = !req->opts->subgroup_check && !direct ? -1 : load_check_device(req);
  if (gdev < 0) return SEALPROV_OK;
  *handled = true;
  if (!direct) sp_log(SEALPROV_LOG_INFO, "srs_load %s: host load (%s)", path, why);
  gpu_load *g = calloc(1, sizeof *g);
  if (g == NULL) {
    snprintf(err, errlen, "%s: out of memory", what);
    return SEALPROV_ERR_NO_MEMORY;
  }
  g->path = path;
  g->lo = *req->opts;
  g->ordinal = req->devices[gdev].ordinal;
  g->section = req->devices[gdev].section;
  g->direct = direct;
  for (size_t i = 0; direct && i < req->ndevices; i++) {
    g->ordinals[g->ndev] = req->devices[i].ordinal;
    g->limits[g->ndev++] = req->devices[i].memory_limit;
  }
  g->st = SEALPROV_ERR_INTERNAL;
  pthread_t t;
  int e = sp_thread_start(&t, gpu_load_main, g, "sp-load");
  if (e != 0) {
    free(g);
    snprintf(err, errlen, "%s: cannot start the loading thread: %s", what, strerror(e));
    return SEALPROV_ERR_NO_MEMORY;
  }
  pthread_join(t, NULL);
  int st = g->st;
  *out = g->srs;
  if (st != SEALPROV_OK) snprintf(err, errlen, "%s", g->err);
  free(g);
  return st;
}
