/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* params_image.h -- a provider's .params load through the host's shared image of the
 * file ([provider] params_shared_image; formats/shimage.h): a load that finds a
 * trusted image of the unchanged file maps it and reads only the verifying key; one that
 * finds none decodes the file into a new image (every check as without it, and the
 * validation record written), which it publishes for the next loads of the host.
 * runtime/params.c drives it; docs/design.md ("One copy of the parameters per host"). */
#ifndef SEALPROV_RUNTIME_PARAMS_IMAGE_H
#define SEALPROV_RUNTIME_PARAMS_IMAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h" /* SP_ESC_MAX */
#include "formats/shimage.h"
#include "formats/srs.h"
#include "formats/vrecord.h"
#include "runtime/device_table.h"
#include "runtime/params.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_params_image {
  const char *path;  /* the file as the load names it */
  const char *canon; /* its canonical path (the image's and the record's name) */
  char shown[SP_ESC_MAX];
  char img[SP_ESC_MAX]; /* the image's path, escaped, for the log and stats */
  const char *setting;  /* the INI's value, for the log */
  sp_vrecord_store *store;
  sp_params_stats *stats;
  sp_shimage_dir *dir;
  sp_shimage_src src;
  sp_shimage_layout lay;
  sp_shimage *w;     /* being made by this load */
  sp_shimage *found; /* made by another process while this one waited for the lock */
  bool untrusted;    /* an image is there but not trusted: neither used nor replaced */
  bool no_make;      /* making one failed once (said): the load decodes its own copy */
} sp_params_image;

/* Sets im up for a load of path (canonical path canon) with the record store `store`
 * (open). False when params_shared_image is off, or the image cannot be used for this
 * load (the folder unusable: a WARN naming it; the file unreadable: the load says
 * why): the load goes on without it. */
bool sp_params_image_open(sp_params_image *im, const sp_config *cfg, const char *path,
                          const char *canon, sp_vrecord_store *store, sp_params_stats *stats);
/* Maps the image (the one found while waiting, else the folder's) when it is whole,
 * trusted and of the file as it is now and as its validation record vouches, and loads
 * the file's verifying key around it with lo's threads and log: true with *out (its
 * proving vectors in the mapping). False, with the reason in the log (none yet, stale,
 * not trusted, damaged), when the caller is to load the file itself. */
bool sp_params_image_map(sp_params_image *im, const sp_srs_load_opts *lo, sp_srs **out);
/* Options of the caller's own load: the proving vectors decoded into a new image when
 * they are decoded on the host (not when an untrusted image is there). */
void sp_params_image_prepare(sp_params_image *im, sp_srs_load_opts *lo);
/* Whether that load stopped because another process made the image meanwhile
 * (sp_params_image_map then maps it). */
bool sp_params_image_found(const sp_params_image *im);
/* After the caller's load (status st, *out its set, val what it validated, vouched:
 * a validation record now vouches for these bytes): publishes the image made and moves
 * *out's vectors into its read-only mapping; when it cannot be published (no record,
 * an error), the set keeps the copy as its own. A failed load leaves nothing. Returns
 * st. */
int sp_params_image_finish(sp_params_image *im, int st, const sp_srs_validation *val, bool vouched,
                           sp_srs **out);
void sp_params_image_close(sp_params_image *im);

#ifdef __cplusplus
}
#endif
#endif
