/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* params.c -- a provider's parameter load (params.h): the options from the INI, progress in
 * the log, and the device kind that helps. */
#include <config.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "base/log.h"
#include "engine/engine.h"
#include "runtime/params.h"

/* Loader progress as INFO lines: at most about one a second or one per 10 %, and the
 * last one. */
typedef struct load_progress {
  double last_ms;
  uint64_t last_bytes;
} load_progress;

static int load_progress_log(void *user, const sp_srs_progress *pr) {
  load_progress *lp = user;
  bool tenth = pr->bytes_total && (pr->bytes_done - lp->last_bytes) * 10 >= pr->bytes_total;
  if (!pr->done && pr->elapsed_ms - lp->last_ms < 1000.0 && !tenth) return 0;
  if (pr->done && pr->elapsed_ms < 1000.0) return 0; /* a short load needs no progress */
  lp->last_ms = pr->elapsed_ms;
  lp->last_bytes = pr->bytes_done;
  sp_log(SEALPROV_LOG_INFO,
         "srs_load %s: %s%.1f%% (%.2f of %.2f GB, vector %s), %" PRIu64
         " points checked, %.2f GB/s, %.0f points/s, %.1f s",
         pr->path, pr->done ? "done " : "",
         pr->bytes_total ? 100.0 * (double)pr->bytes_done / (double)pr->bytes_total : 100.0,
         (double)pr->bytes_done / 1e9, (double)pr->bytes_total / 1e9, pr->vector ? pr->vector : "-",
         pr->points_checked, pr->bytes_per_s / 1e9, pr->points_per_s, pr->elapsed_ms / 1e3);
  return 0;
}

static void load_log(void *user, int level, const char *msg) {
  (void)user;
  sp_log(level, "%s", msg);
}

int sp_params_load(const sp_config *cfg, const char *path, bool vk_only, sp_srs **out, char *err,
                   size_t errlen) {
  unsigned threads = cfg->load_threads;
  if (threads == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    threads = n > 0 ? (unsigned)n : 1;
  }
  load_progress lp = {0};
  sp_srs_load_opts lo = {.vk_only = vk_only,
                         .subgroup_check = cfg->params_subgroup_check,
                         .nthreads = threads,
                         .manifest = cfg->params_manifest[0] ? cfg->params_manifest : NULL,
                         .progress = load_progress_log,
                         .progress_user = &lp,
                         .log = load_log};
  /* The first device whose kind can help with a .params load takes it (a .vk has no
   * proving vectors: nothing for a device to check). */
  const sp_backend *helper = NULL;
  for (size_t i = 0; !vk_only && helper == NULL && i < cfg->ndevices; i++) {
    const sp_backend *b = sp_backend_for(cfg->devices[i].type);
    if (b != NULL && b->load != NULL) helper = b;
  }
  if (helper != NULL) {
    const sp_load_request req = {.path = path,
                                 .opts = &lo,
                                 .devices = cfg->devices,
                                 .ndevices = cfg->ndevices,
                                 .host_residency = cfg->params_residency == SP_RESIDENCY_HOST};
    bool handled = false;
    int st = helper->load(&req, out, &handled, err, errlen);
    if (handled) return st;
  }
  return sp_srs_load_ex(path, &lo, out, err, errlen);
}
