/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* params_image.c -- a provider's .params load through the host's shared image
 * (params_image.h).
 *
 * The image is trusted as far as the validation record of its file: it is used only
 * when its header's source identity and digest equal the file's identity now and the
 * digest of a trusted record that matches that identity (sp_shimage_src.digest_now), so
 * a changed file, a stale or forged record and an image of another file all send the
 * load back to the file. A load that makes an image publishes it only once a record
 * vouches for the bytes it decoded (written by this load, or used and its digest
 * verified). */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "base/util.h"
#include "runtime/params_image.h"

static void count(_Atomic uint64_t *c) { atomic_fetch_add(c, 1); }

/* The digest the file's trusted record has for identity id (shimage.h, digest_now). */
static bool record_digest(void *user, const sp_file_id *id, uint8_t digest[16]) {
  sp_params_image *im = user;
  char why[SP_ESC_MAX + 512];
  return sp_vrecord_lookup(im->store, im->canon, id, digest, why, sizeof why) == SP_VREC_MATCH;
}

bool sp_params_image_open(sp_params_image *im, const sp_config *cfg, const char *path,
                          const char *canon, sp_vrecord_store *store, sp_params_stats *stats) {
  memset(im, 0, sizeof *im);
  const char *set = cfg->params_shared_image;
  if (set[0] == '\0') return false;
  *im = (sp_params_image){
      .path = path, .canon = canon, .setting = set, .store = store, .stats = stats};
  sp_utf8_escape(canon, im->shown, sizeof im->shown);
  sp_srs_lengths len;
  struct stat st;
  if (sp_srs_peek_lengths(path, &len) != SEALPROV_OK || stat(canon, &st) != 0)
    return false; /* the load itself says what is wrong with the file */
  im->lay =
      (sp_shimage_layout){.len = {len.h_len, len.l_len, len.a_len, len.b_g1_len, len.b_g2_len},
                          .log_domain = len.log_domain};
  im->src = (sp_shimage_src){
      .path = canon,
      .id = {.dev = (uint64_t)st.st_dev,
             .ino = (uint64_t)st.st_ino,
             .size = (uint64_t)st.st_size,
             .mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
             .ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec},
      .checks = SP_SHIMAGE_SUBGROUP, /* the INI allows the image only with every check */
      .digest_now = record_digest,
      .digest_user = im};
  char root[4096], why[SP_ESC_MAX + 512];
  if (strcmp(set, "auto") == 0)
    sp_shimage_default_dir(root, sizeof root);
  else
    snprintf(root, sizeof root, "%s", set);
  bool untrusted = false;
  im->dir = sp_shimage_dir_open(root, &untrusted, why, sizeof why);
  if (im->dir == NULL) {
    if (untrusted) count(&stats->image_refused);
    sp_log(SEALPROV_LOG_WARN,
           "srs_load %s: no shared image: its folder cannot be used (%s): this process decodes "
           "its own copy ([provider] params_shared_image = %s)",
           im->shown, why, set);
    return false;
  }
  char raw[4300];
  sp_shimage_path(im->dir, canon, raw, sizeof raw);
  sp_utf8_escape(raw, im->img, sizeof im->img);
  return true;
}

static void unmap_owner(void *owner) { sp_shimage_unmap(owner); }

/* Points s's proving vectors into m, which s now owns: a shared image (its bytes are
 * the image's) or a copy of this process's own (its host bytes). */
static void adopt(sp_params_image *im, sp_srs *s, sp_shimage *m, bool shared) {
  s->h = m->vec[0];
  s->l = m->vec[1];
  s->a = m->vec[2];
  s->b_g1 = m->vec[3];
  s->b_g2 = m->vec[4];
  s->vectors_given = true;
  s->vectors_owner = m;
  s->vectors_release = unmap_owner;
  if (shared) {
    s->image_bytes = m->bytes;
    s->image_path = strdup(im->img); /* NULL when out of memory: stats show "" */
  } else {
    s->host_bytes = m->bytes;
  }
  sp_srs_memory_track(s);
}

/* The verifying key from the file and the proving vectors from m. */
static bool load_mapped(sp_params_image *im, sp_shimage *m, const sp_srs_load_opts *base,
                        sp_srs **out) {
  sp_srs_vectors given = {.decoded = true, .id = im->src.id};
  for (int v = 0; v < SP_SHIMAGE_VECTORS; v++) {
    given.vec[v] = m->vec[v];
    given.len[v] = m->layout.len[v];
  }
  sp_srs_validation val;
  sp_srs_load_opts lo = {.subgroup_check = base->subgroup_check,
                         .nthreads = base->nthreads,
                         .log = base->log,
                         .log_user = base->log_user,
                         .vectors = &given,
                         .validation = &val};
  char err[SP_ESC_MAX + 512], esc[sizeof err];
  double t0 = sp_now_ms();
  int st = sp_srs_load_ex(im->path, &lo, out, err, sizeof err);
  if (st != SEALPROV_OK) {
    sp_shimage_unmap(m);
    count(&im->stats->image_refused);
    sp_log(SEALPROV_LOG_WARN, "srs_load %s: shared image %s not used (%s): loading the file",
           im->shown, im->img, sp_utf8_escape(err, esc, sizeof esc));
    return false;
  }
  adopt(im, *out, m, true);
  count(&im->stats->image_mapped);
  sp_log(SEALPROV_LOG_INFO,
         "srs_load %s: shared image %s mapped (%.2f GB of proving vectors, checked when it was "
         "made; none held by this process); verifying key read; load %.1f s",
         im->shown, im->img, (double)m->bytes / 1e9, (sp_now_ms() - t0) / 1e3);
  return true;
}

/* Why the folder's image was not mapped, in the log; one not trusted is left alone. */
static void not_mapped(sp_params_image *im, sp_shimage_verdict vd, const char *why) {
  if (vd == SP_SHIMG_NONE) {
    sp_log(SEALPROV_LOG_INFO, "srs_load %s: no shared image yet (%s)", im->shown, why);
    return;
  }
  count(&im->stats->image_refused);
  im->untrusted = vd == SP_SHIMG_UNTRUSTED;
  sp_log(vd == SP_SHIMG_STALE ? SEALPROV_LOG_INFO : SEALPROV_LOG_WARN,
         "srs_load %s: shared image %s %s (%s): loading the file%s", im->shown, im->img,
         vd == SP_SHIMG_STALE       ? "is stale"
         : vd == SP_SHIMG_UNTRUSTED ? "is not trusted"
                                    : "is not a whole image",
         why, im->untrusted ? "; the image is neither used nor replaced" : "");
}

bool sp_params_image_map(sp_params_image *im, const sp_srs_load_opts *lo, sp_srs **out) {
  sp_shimage *m = im->found;
  im->found = NULL;
  if (m == NULL) {
    char why[SP_ESC_MAX + 1024];
    sp_shimage_verdict vd = sp_shimage_map(im->dir, &im->src, &im->lay, &m, why, sizeof why);
    if (vd != SP_SHIMG_MATCH) {
      not_mapped(im, vd, why);
      return false;
    }
  }
  return load_mapped(im, m, lo, out);
}

/* The loader's question once the vectors are known to be decoded on the host: the new
 * image's memory, after the lock (a process making it is waited for). */
static int vectors_for(void *user, sp_srs_vectors *out, char *err, size_t errlen) {
  sp_params_image *im = user;
  memset(out, 0, sizeof *out);
  if (im->w == NULL && !im->no_make) {
    char why[SP_ESC_MAX + 1024];
    int st = sp_shimage_begin(im->dir, &im->src, &im->lay, &im->w, &im->found, why, sizeof why);
    if (st == SEALPROV_OK && im->found != NULL) {
      sp_set_err(err, errlen, "%s: a shared image was made by another process meanwhile",
                 im->shown);
      return SEALPROV_ERR_CANCELLED;
    }
    if (st != SEALPROV_OK) {
      im->no_make = true;
      sp_log(SEALPROV_LOG_WARN,
             "srs_load %s: no shared image made (%s): this process decodes its own copy "
             "([provider] params_shared_image = %s)",
             im->shown, why, im->setting);
    }
  }
  if (im->w == NULL) return SEALPROV_OK;
  for (int v = 0; v < SP_SHIMAGE_VECTORS; v++) {
    out->vec[v] = im->w->vec[v];
    out->len[v] = im->w->layout.len[v];
  }
  return SEALPROV_OK;
}

void sp_params_image_prepare(sp_params_image *im, sp_srs_load_opts *lo) {
  if (im->untrusted) return;
  lo->vectors_for = vectors_for;
  lo->vectors_for_user = im;
}

bool sp_params_image_found(const sp_params_image *im) { return im->found != NULL; }

int sp_params_image_finish(sp_params_image *im, int st, const sp_srs_validation *val, bool vouched,
                           sp_srs **out) {
  sp_shimage *w = im->w;
  im->w = NULL;
  if (w == NULL && st == SEALPROV_OK && (*out)->device_only)
    sp_log(SEALPROV_LOG_INFO,
           "srs_load %s: no shared image made: the set went straight onto the GPUs, with no "
           "host copy to share",
           im->shown);
  if (w == NULL) return st;
  if (st != SEALPROV_OK) {
    sp_shimage_abort(w); /* nothing is left of it */
    return st;
  }
  char why[SP_ESC_MAX + 1024];
  if (vouched) {
    sp_shimage_src src = im->src;
    src.id = val->id; /* the bytes the load read and the record names */
    memcpy(src.digest, val->digest, sizeof src.digest);
    sp_shimage *m = NULL;
    if (sp_shimage_commit(im->dir, &src, w, &m, why, sizeof why) == SEALPROV_OK) {
      adopt(im, *out, m, true);
      count(&im->stats->image_made);
      sp_log(SEALPROV_LOG_INFO,
             "srs_load %s: shared image %s made (%.2f GB): the next loads of this file on this "
             "host map it",
             im->shown, im->img, (double)m->bytes / 1e9);
      return st;
    }
  } else {
    snprintf(why, sizeof why, "no validation record vouches for the file");
    sp_shimage_keep(w);
  }
  adopt(im, *out, w, false);
  sp_log(SEALPROV_LOG_WARN,
         "srs_load %s: shared image %s not published (%s): this process keeps its copy", im->shown,
         im->img, why);
  return st;
}

void sp_params_image_close(sp_params_image *im) {
  sp_shimage_abort(im->w);
  sp_shimage_unmap(im->found);
  sp_shimage_dir_close(im->dir);
  im->w = im->found = NULL;
  im->dir = NULL;
}
