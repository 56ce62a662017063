/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* srs_set.c -- a loaded parameter set's life (retain, release, free), the host memory of
 * the live sets' proving vectors, and a .params file's lengths read without a load
 * (srs.h). */
#include "base/util.h"
#include "formats/srs.h"
#include "formats/srs_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sealprov.h"

/* The sets whose proving vectors are in host memory: their own or a shared image's. */
static pthread_mutex_t mem_mu = PTHREAD_MUTEX_INITIALIZER;
static sp_srs *mem_sets;

void sp_srs_memory_track(sp_srs *srs) {
  pthread_mutex_lock(&mem_mu);
  if (!srs->mem_tracked) {
    srs->mem_tracked = true;
    srs->mem_next = mem_sets;
    mem_sets = srs;
  }
  pthread_mutex_unlock(&mem_mu);
}

void sp_srs_host_memory(sp_srs_memory_fn fn, void *user) {
  pthread_mutex_lock(&mem_mu);
  for (const sp_srs *s = mem_sets; s != NULL; s = s->mem_next) fn(user, s);
  pthread_mutex_unlock(&mem_mu);
}

static void memory_untrack(sp_srs *srs) {
  pthread_mutex_lock(&mem_mu);
  for (sp_srs **pp = &mem_sets; *pp != NULL; pp = &(*pp)->mem_next)
    if (*pp == srs) {
      *pp = srs->mem_next;
      break;
    }
  pthread_mutex_unlock(&mem_mu);
}

void sp_srs_free(sp_srs *s) {
  if (!s) return;
  if (s->mem_tracked) memory_untrack(s);
  free(s->vk.ic);
  if (!s->vectors_given) {
    free(s->h);
    free(s->l);
    free(s->a);
    free(s->b_g1);
    free(s->b_g2);
  }
  if (s->vectors_release) s->vectors_release(s->vectors_owner);
  if (s->devcopy && s->devcopy_free) s->devcopy_free(s->devcopy);
  free(s->image_path);
  free(s->path);
  free(s);
}

int sp_srs_load(const char *path, bool vk_only, bool subgroup_check, unsigned nthreads,
                sp_srs **out, char *err, size_t errlen) {
  sp_srs_load_opts o = {.vk_only = vk_only, .subgroup_check = subgroup_check, .nthreads = nthreads};
  return sp_srs_load_ex(path, &o, out, err, errlen);
}

int sp_srs_peek_lengths(const char *path, sp_srs_lengths *out) {
  memset(out, 0, sizeof *out);
  char full[4096], err[64];
  if (!path || !*path || !sp_srs_resolve_path(path, full, sizeof full))
    return SEALPROV_ERR_INVALID_ARGUMENT;
  sp_file f;
  int rc = sp_file_open(&f, full, err, sizeof err);
  if (rc != SEALPROV_OK) return rc;
  /* ic, then the five proving vectors, each a u32 big-endian count and its points */
  uint64_t *const lens[6] = {&out->ic_len, &out->h_len,    &out->l_len,
                             &out->a_len,  &out->b_g1_len, &out->b_g2_len};
  uint64_t off = VK_FIXED_BYTES;
  for (int i = 0; i < 6 && rc == SEALPROV_OK; i++) {
    uint8_t b[4];
    if (off + 4 > f.size) {
      rc = SEALPROV_ERR_PARAMS;
      break;
    }
    rc = sp_file_read(&f, b, 4, off, "length", err, sizeof err);
    *lens[i] = (uint64_t)b[0] << 24 | (uint64_t)b[1] << 16 | (uint64_t)b[2] << 8 | b[3];
    off += 4 + *lens[i] * (i == 5 ? G2_BYTES : G1_BYTES);
  }
  if (rc == SEALPROV_OK && off != f.size) rc = SEALPROV_ERR_PARAMS;
  uint64_t m = out->h_len + 1;
  if (rc == SEALPROV_OK && (out->h_len == 0 || (m & (m - 1)) != 0)) rc = SEALPROV_ERR_PARAMS;
  if (rc == SEALPROV_OK) out->log_domain = (unsigned)__builtin_ctzll(m);
  sp_file_close(&f);
  return rc;
}

void sp_srs_retain(sp_srs *srs) {
  if (srs) atomic_fetch_add(&srs->refs, 1);
}

void sp_srs_release(sp_srs *srs) {
  if (!srs) return;
  if (atomic_fetch_sub(&srs->refs, 1) != 1) return;
  /* last reference: engines drop their device copies before the memory goes */
  if (srs->on_free) srs->on_free(srs, srs->on_free_user);
  sp_srs_free(srs);
}
