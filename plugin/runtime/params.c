/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* params.c -- a provider's parameter load (params.h): the options from the INI, progress
 * in the log, the device kind that helps, and the validation record that lets a load of
 * an unchanged file skip the subgroup checks (formats/vrecord.h). */
#include <config.h>

#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/util.h"
#include "engine/engine.h"
#include "formats/vrecord.h"
#include "runtime/params.h"
#include "runtime/params_image.h"

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

/* One load of path with lo: by the first device kind that helps, else here. */
static int load_once(const sp_config *cfg, const char *path, bool vk_only, sp_srs_load_opts *lo,
                     sp_srs **out, char *err, size_t errlen) {
  /* The first device whose kind can help with a .params load takes it (a .vk has no
   * proving vectors: nothing for a device to check). */
  const sp_backend *helper = NULL;
  for (size_t i = 0; !vk_only && helper == NULL && i < cfg->ndevices; i++) {
    const sp_backend *b = sp_backend_for(cfg->devices[i].type);
    if (b != NULL && b->load != NULL) helper = b;
  }
  if (helper != NULL) {
    const sp_load_request req = {.path = path,
                                 .opts = lo,
                                 .devices = cfg->devices,
                                 .ndevices = cfg->ndevices,
                                 .host_residency = cfg->params_residency == SP_RESIDENCY_HOST};
    bool handled = false;
    int st = helper->load(&req, out, &handled, err, errlen);
    if (handled) return st;
  }
  return sp_srs_load_ex(path, lo, out, err, errlen);
}

/* ---- validation records ------------------------------------------------------------- */

/* A load's record: the store, the file's canonical path, the provider's counters. */
typedef struct vrec_ctx {
  sp_vrecord_store *store;
  char canon[PATH_MAX];
  char shown[SP_ESC_MAX]; /* the record's path, for the log */
  sp_params_stats *stats;
} vrec_ctx;

static void count(_Atomic uint64_t *c, uint64_t n) { atomic_fetch_add(c, n); }

/* Opens the store cfg names for a load of path; false (no records: every point is
 * checked) when it is off or cannot be used, which is logged and never an error. */
static bool vrec_open(const sp_config *cfg, const char *path, sp_params_stats *stats, vrec_ctx *v) {
  char root[4096], why[SP_ESC_MAX + 256], full[PATH_MAX], esc[SP_ESC_MAX];
  const char *set = cfg->params_validation_cache;
  int level = SEALPROV_LOG_INFO;
  v->stats = stats;
  if (strcmp(set, "off") == 0) return false;
  if (!sp_srs_resolve_path(path, full, sizeof full) || realpath(full, v->canon) == NULL)
    return false; /* the load itself says why it cannot read the file */
  if (set[0] != '\0') snprintf(root, sizeof root, "%s", set);
  v->store = set[0] != '\0' || sp_vrecord_default_root(root, sizeof root, why, sizeof why)
                 ? sp_vrecord_open(root, &level, why, sizeof why)
                 : NULL;
  if (v->store != NULL) {
    sp_vrecord_shown(v->store, v->canon, v->shown, sizeof v->shown);
    return true;
  }
  /* a store that is missing or read-only is said once per provider; one that is there
   * but not trusted, at every load */
  bool first = !atomic_exchange(&stats->store_noted, true);
  if (level == SEALPROV_LOG_WARN || first)
    sp_log(level,
           "srs_load %s: validation records not used (%s): every point is checked "
           "([provider] params_validation_cache = %s)",
           sp_utf8_escape(full, esc, sizeof esc), why, set[0] ? set : "auto");
  return false;
}

/* The loader's question once the file is open (srs.h checked_before): a trusted record
 * that matches every field of the file's identity. */
static bool vrec_checked_before(void *user, const sp_file_id *id, uint8_t want[16]) {
  vrec_ctx *v = user;
  char why[SP_ESC_MAX + 512], esc[SP_ESC_MAX];
  sp_vrec_verdict vd = sp_vrecord_lookup(v->store, v->canon, id, want, why, sizeof why);
  if (vd == SP_VREC_MATCH) return true;
  if (vd != SP_VREC_NONE) count(&v->stats->records_refused, 1);
  bool warn = vd == SP_VREC_UNTRUSTED || vd == SP_VREC_BAD;
  sp_log(warn ? SEALPROV_LOG_WARN : SEALPROV_LOG_INFO,
         "srs_load %s: %s%s%s: every point is checked", sp_utf8_escape(v->canon, esc, sizeof esc),
         vd == SP_VREC_UNTRUSTED ? "validation record not trusted: "
         : vd == SP_VREC_BAD     ? "not a validation record: "
         : vd == SP_VREC_NONE    ? "no validation record yet ("
                                 : "validation record ",
         why, vd == SP_VREC_NONE ? ")" : "");
  return false;
}

/* After a successful .params load with records on: what it used, or the record of the
 * validation it ran. True when a record now vouches for the bytes the load read. */
static bool vrec_after(vrec_ctx *v, const sp_srs_validation *val, const sp_srs *srs, double ms) {
  char esc[SP_ESC_MAX], why[SP_ESC_MAX + 256];
  sp_utf8_escape(v->canon, esc, sizeof esc);
  count(&v->stats->digest_ns, (uint64_t)(val->digest_cpu_ms * 1e6));
  if (val->skipped) {
    size_t points = srs->h_len + srs->l_len + srs->a_len + srs->b_g1_len + srs->b_g2_len;
    count(&v->stats->record, 1);
    sp_log(SEALPROV_LOG_INFO,
           "srs_load %s: validated earlier: record %s, digest verified (%.3f s of thread time "
           "on up to %u reading threads), %zu points not rechecked for the subgroup; load %.1f s",
           esc, v->shown, val->digest_cpu_ms / 1e3, val->threads, points, ms / 1e3);
    return true;
  }
  count(&v->stats->full, 1);
  if (!val->digest_done) { /* the reads did not cover the file once, in order: a bug */
    sp_log(SEALPROV_LOG_WARN,
           "srs_load %s: every point checked; no validation record written "
           "(the digest did not cover every byte of the file once: internal error)",
           esc);
    return false;
  }
  if (sp_vrecord_write(v->store, v->canon, &val->id, val->digest, why, sizeof why) != SEALPROV_OK) {
    sp_log(SEALPROV_LOG_INFO,
           "srs_load %s: every point checked; no validation record written (%s: %s)", esc, v->shown,
           why);
    return false;
  }
  count(&v->stats->records_written, 1);
  sp_log(SEALPROV_LOG_INFO,
         "srs_load %s: every point checked; validation record %s written (digest %.3f s of "
         "thread time); load %.1f s",
         esc, v->shown, val->digest_cpu_ms / 1e3, ms / 1e3);
  return true;
}

/* ---- the load -------------------------------------------------------------------------- */

/* A load's state: its records, its shared image, its progress and what it validated. */
typedef struct load_ctx {
  const sp_config *cfg;
  const char *path;
  bool vk_only;
  sp_params_stats *stats;
  sp_srs_load_opts lo;
  load_progress lp;
  sp_srs_validation val;
  vrec_ctx vr;
  bool records;
  sp_params_image im;
  bool image;
} load_ctx;

/* The file loaded with c->lo: once, and again with every check when the validation
 * record it trusted turned out not to match the bytes. */
static int load_checked(load_ctx *c, sp_srs **out, char *err, size_t errlen) {
  int st = load_once(c->cfg, c->path, c->vk_only, &c->lo, out, err, errlen);
  if (c->records && st == SEALPROV_ERR_PARAMS && c->val.stale) {
    /* the bytes are not the ones the record vouches for: nothing of that load is used */
    count(&c->stats->records_refused, 1);
    sp_log(SEALPROV_LOG_WARN, "%s; record %s not used: loading again with every check", err,
           c->vr.shown);
    c->lo.checked_before = NULL;
    c->lp = (load_progress){0};
    st = load_once(c->cfg, c->path, c->vk_only, &c->lo, out, err, errlen);
  }
  return st;
}

/* The file read and decoded by this process (into a new shared image when there is one
 * to make), its record written, the image published. */
static int load_file(load_ctx *c, sp_srs **out, char *err, size_t errlen) {
  if (c->image) sp_params_image_prepare(&c->im, &c->lo);
  double t0 = sp_now_ms();
  int st = load_checked(c, out, err, errlen);
  if (c->image && sp_params_image_found(&c->im)) {
    /* another process made the image while this one waited for it: map that */
    if (sp_params_image_map(&c->im, &c->lo, out)) return SEALPROV_OK;
    c->lo.vectors_for = NULL;
    st = load_checked(c, out, err, errlen);
  }
  bool vouched = false;
  if (st == SEALPROV_OK && c->records)
    vouched = vrec_after(&c->vr, &c->val, *out, sp_now_ms() - t0);
  else if (st == SEALPROV_OK && !c->vk_only)
    count(c->cfg->params_subgroup_check ? &c->stats->full : &c->stats->unchecked, 1);
  if (c->image) st = sp_params_image_finish(&c->im, st, &c->val, vouched, out);
  return st;
}

int sp_params_load(const sp_config *cfg, const char *path, bool vk_only, sp_params_stats *stats,
                   sp_srs **out, char *err, size_t errlen) {
  unsigned threads = cfg->load_threads;
  if (threads == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    threads = n > 0 ? (unsigned)n : 1;
  }
  sp_params_stats none;
  if (stats == NULL) { /* counted all the same, then dropped */
    memset(&none, 0, sizeof none);
    stats = &none;
  }
  load_ctx *c = calloc(1, sizeof *c);
  if (c == NULL) {
    sp_set_err(err, errlen, "srs_load: out of memory");
    return SEALPROV_ERR_NO_MEMORY;
  }
  *c = (load_ctx){.cfg = cfg, .path = path, .vk_only = vk_only, .stats = stats};
  c->lo = (sp_srs_load_opts){.vk_only = vk_only,
                             .subgroup_check = cfg->params_subgroup_check,
                             .nthreads = threads,
                             .manifest = cfg->params_manifest[0] ? cfg->params_manifest : NULL,
                             .progress = load_progress_log,
                             .progress_user = &c->lp,
                             .log = load_log};
  c->records = !vk_only && cfg->params_subgroup_check && vrec_open(cfg, path, stats, &c->vr);
  if (c->records) {
    c->lo.digest_secret = sp_vrecord_secret(c->vr.store, &c->lo.digest_secret_len);
    c->lo.validation = &c->val;
    c->lo.checked_before = vrec_checked_before;
    c->lo.checked_before_user = &c->vr;
    c->image = sp_params_image_open(&c->im, cfg, path, c->vr.canon, c->vr.store, stats);
  }
  int st = SEALPROV_OK;
  if (!c->image || !sp_params_image_map(&c->im, &c->lo, out)) st = load_file(c, out, err, errlen);
  if (c->image) sp_params_image_close(&c->im);
  sp_vrecord_close(c->vr.store);
  free(c);
  return st;
}
