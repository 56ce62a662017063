/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_load.c -- one create_SRS in a fresh process, as each child of Curio's default path
 * makes it (lib/ffiselect: start, create_SRS, prove, exit), timed:
 *
 *   c2_load PARAMS   create_SRS(PARAMS, cache = false), drop_SRS, then one line on
 *                    stdout: {"create_SRS_s": S, "drop_SRS_s": S}; exit 0. A failed
 *                    create_SRS prints its message on stderr and exits 1.
 *
 * Linked against libsealprov_c2 alone, like a Rust caller; the module and its INI come
 * from SEALPROV_PLUGIN and SEALPROV_CONFIG, its log lines from SEALPROV_C2_LOG_LEVEL
 * (stderr). tests/compat/c2_validated.sh runs it on CPU devices; dev/validated-load.sh
 * on the GPU machine with the 2^27 file. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sealprov_c2.h"

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: c2_load PARAMS\n");
    return 2;
  }
  c2_SRS srs = {NULL};
  double t0 = now_s();
  c2_error e = create_SRS(&srs, argv[1], false);
  double t1 = now_s();
  if (e.code != 0) {
    fprintf(stderr, "c2_load: create_SRS(%s): %d: %s\n", argv[1], e.code,
            e.message ? e.message : "(no message)");
    free(e.message);
    drop_SRS(&srs);
    return 1;
  }
  drop_SRS(&srs);
  printf("{\"create_SRS_s\": %.3f, \"drop_SRS_s\": %.3f}\n", t1 - t0, now_s() - t1);
  return 0;
}
