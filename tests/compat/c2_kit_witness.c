/* SPDX-License-Identifier: Apache-2.0 OR MIT */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c2_kit_witness.h"

/* compat/c2.c asserts each of the 17 fields; the Assignment is the witness's as is */
_Static_assert(sizeof(c2_assignment) == sizeof(sealprov_assignment) &&
                   offsetof(c2_assignment, a) == offsetof(sealprov_assignment, a) &&
                   offsetof(c2_assignment, aux_assignment_data) ==
                       offsetof(sealprov_assignment, aux_assignment),
               "an Assignment is a sealprov_assignment");

typedef struct conv_part {
  c2_fr *p;
  size_t n;
  c2_error e;
} conv_part;

static void *conv_run(void *arg) {
  conv_part *c = arg;
  c->e = sealprov_c2_fr_from_canonical(c->p, c->p, c->n);
  return NULL;
}

/* n canonical scalars at p to Montgomery form in place, on up to threads threads. */
static bool to_montgomery(c2_fr *p, size_t n, unsigned threads, char *err, size_t errlen) {
  enum { MAX_THREADS = 64 };
  conv_part parts[MAX_THREADS];
  pthread_t tids[MAX_THREADS];
  bool joined[MAX_THREADS];
  unsigned t = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
  size_t step = (n + t - 1) / t;
  for (unsigned i = 0; i < t; i++) {
    size_t lo = (size_t)i * step, hi = lo + step < n ? lo + step : n;
    parts[i] = (conv_part){p + lo, lo < n ? hi - lo : 0, {0, NULL}};
    joined[i] = pthread_create(&tids[i], NULL, conv_run, &parts[i]) == 0;
    if (!joined[i]) conv_run(&parts[i]); /* no thread: this one converts the part */
  }
  bool ok = true;
  for (unsigned i = 0; i < t; i++) {
    if (joined[i]) pthread_join(tids[i], NULL);
    if (parts[i].e.code != 0 && ok) {
      snprintf(err, errlen, "conversion to Montgomery form: %s", parts[i].e.message);
      ok = false;
    }
    free(parts[i].e.message);
  }
  return ok;
}

bool c2_kit_witness(sp_witness *w, unsigned threads, c2_assignment *asg, char *err, size_t errlen) {
  const sealprov_assignment *a = &w->asg;
  size_t n = (size_t)(3 * a->abc_size + a->inp_size + a->aux_size);
  if (!to_montgomery((c2_fr *)w->scalars, n, threads, err, errlen)) return false;
  memcpy(asg, a, sizeof *asg);
  return true;
}
