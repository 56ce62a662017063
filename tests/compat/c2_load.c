/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* c2_load.c -- one create_SRS in a fresh process, as each child of Curio's default path
 * makes it (lib/ffiselect: start, create_SRS, prove, exit), timed:
 *
 *   c2_load [--touch] [--hold DIR] PARAMS
 *                    create_SRS(PARAMS, cache = false), drop_SRS, then one line on
 *                    stdout: {"create_SRS_s": S, "drop_SRS_s": S}; exit 0. A failed
 *                    create_SRS prints its message on stderr and exits 1. With --hold,
 *                    the loaded set is kept until DIR/release exists: the child makes
 *                    DIR/loaded.PID once create_SRS returned, so that a script can
 *                    measure the host memory of several children holding the set at
 *                    once (dev/shared-image-mem.sh). With --touch, once create_SRS
 *                    returned, one byte of every page of each shared image the process
 *                    maps ([provider] params_shared_image: the mappings of *.img files
 *                    in /proc/self/maps) is read, as a proof that reads every point
 *                    would: a mapped image then counts in the process's Rss and Pss;
 *                    the line gains "touched_bytes".
 *
 * Linked against libsealprov_c2 alone, like a Rust caller; the module and its INI come
 * from SEALPROV_PLUGIN and SEALPROV_CONFIG, its log lines from SEALPROV_C2_LOG_LEVEL
 * (stderr). tests/compat/c2_validated.sh runs it on CPU devices; dev/validated-load.sh
 * on the GPU machine with the 2^27 file. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sealprov_c2.h"

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Says the set is loaded (DIR/loaded.PID) and waits for DIR/release; 1 when the marker
 * cannot be made. */
static int hold(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/loaded.%ld", dir, (long)getpid());
  FILE *f = fopen(path, "w");
  if (f == NULL || fclose(f) != 0) {
    perror(path);
    return 1;
  }
  snprintf(path, sizeof path, "%s/release", dir);
  const struct timespec tick = {.tv_sec = 0, .tv_nsec = 100 * 1000 * 1000};
  while (access(path, F_OK) != 0) nanosleep(&tick, NULL);
  return 0;
}

/* Reads one byte of every page of each *.img mapping of this process: the bytes so
 * read (their sum keeps the reads from being optimised away). */
static uint64_t touch_images(uint64_t *sum) {
  FILE *f = fopen("/proc/self/maps", "r");
  uint64_t bytes = 0;
  char line[4608];
  while (f != NULL && fgets(line, sizeof line, f) != NULL) {
    size_t n = strcspn(line, "\n");
    line[n] = '\0';
    if (n < 4 || strcmp(line + n - 4, ".img") != 0) continue;
    unsigned long lo = 0, hi = 0;
    if (sscanf(line, "%lx-%lx", &lo, &hi) != 2) continue;
    for (unsigned long a = lo; a < hi; a += 4096) *sum += *(const volatile uint8_t *)a;
    bytes += hi - lo;
  }
  if (f != NULL) fclose(f);
  return bytes;
}

int main(int argc, char **argv) {
  const char *hold_dir = NULL;
  bool touch = false;
  for (;;) {
    if (argc >= 3 && strcmp(argv[1], "--hold") == 0) {
      hold_dir = argv[2];
      argv += 2;
      argc -= 2;
    } else if (argc >= 2 && strcmp(argv[1], "--touch") == 0) {
      touch = true;
      argv++;
      argc--;
    } else {
      break;
    }
  }
  if (argc != 2) {
    fprintf(stderr, "usage: c2_load [--touch] [--hold DIR] PARAMS\n");
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
  uint64_t sum = 0, touched = touch ? touch_images(&sum) : 0;
  if (hold_dir != NULL && hold(hold_dir) != 0) {
    drop_SRS(&srs);
    return 1;
  }
  double t2 = now_s();
  drop_SRS(&srs);
  printf("{\"create_SRS_s\": %.3f, \"drop_SRS_s\": %.3f", t1 - t0, now_s() - t2);
  if (touch) printf(", \"touched_bytes\": %" PRIu64 ", \"sum\": %" PRIu64, touched, sum);
  printf("}\n");
  return 0;
}
