/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* handle_set.h -- a set of the handles a host holds, known by their values.
 *
 * A handle that comes back from a host is checked by looking its VALUE up among the live
 * ones, never by reading through it: a released one is freed memory, and a foreign
 * pointer may point anywhere (docs/design.md rule 7). The module's entry point keeps
 * its parameter sets and constraint systems here (plugin/abi/module.c), libsealprov_c2
 * its SRS, GPU mutexes and pending proofs (compat/c2.c). The caller holds its own lock
 * around every call (hence _locked): the look-up and what it decides (a reference
 * taken, the handle taken out) must be one step under that lock.
 *
 * Header-only, so that libsealprov_c2, which links none of the module's libraries but
 * the curve code, uses the same code. */
#ifndef SEALPROV_BASE_HANDLE_SET_H
#define SEALPROV_BASE_HANDLE_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

typedef struct sp_handle_set {
  const void **v;
  size_t len, cap;
} sp_handle_set;

static inline bool sp_handle_set_has_locked(const sp_handle_set *s, const void *h) {
  for (size_t i = 0; i < s->len; i++)
    if (s->v[i] == h) return true;
  return false;
}

/* Adds h; false when there is no memory for it (the set is unchanged). */
static inline bool sp_handle_set_add_locked(sp_handle_set *s, const void *h) {
  if (s->len == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 16;
    const void **n = realloc(s->v, cap * sizeof *n);
    if (n == NULL) return false;
    s->v = n;
    s->cap = cap;
  }
  s->v[s->len++] = h;
  return true;
}

/* Takes h out of the set; false when it was not there. The array is freed with the last
 * handle, so a host that unloads the library leaks nothing of it. */
static inline bool sp_handle_set_remove_locked(sp_handle_set *s, const void *h) {
  bool found = false;
  for (size_t i = 0; i < s->len; i++) {
    if (s->v[i] == h) {
      s->v[i] = s->v[--s->len];
      found = true;
      break;
    }
  }
  if (s->len == 0) {
    free(s->v);
    s->v = NULL;
    s->cap = 0;
  }
  return found;
}

#endif
