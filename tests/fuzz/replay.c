/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* replay.c -- a main() for the harnesses in builds without libFuzzer (gcc, the
 * sanitizer builds): runs LLVMFuzzerTestOneInput once on every file named on the
 * command line, or on every regular file of a named directory (not recursive), so the
 * checked-in corpora are regression tests in `make check`. Exit 0 when every input
 * ran (a failed property aborts), 1 when an argument cannot be read, 77 (skip) when
 * there is nothing to run. */
#include "fuzz_common.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

static int run_file(const char *path, size_t *count) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: %s: cannot open: %s\n", path, strerror(errno));
    return 1;
  }
  size_t cap = 4096, len = 0;
  uint8_t *buf = malloc(cap);
  for (;;) {
    if (!buf) break;
    if (len == cap) {
      uint8_t *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) break;
  }
  int bad = ferror(f) || !buf;
  fclose(f);
  if (bad) {
    free(buf);
    fprintf(stderr, "replay: %s: cannot read\n", path);
    return 1;
  }
  LLVMFuzzerTestOneInput(buf, len);
  free(buf);
  (*count)++;
  return 0;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  size_t count = 0;
  int failed = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
      failed = 1;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      failed |= run_file(argv[i], &count);
      continue;
    }
    DIR *d = opendir(argv[i]);
    if (!d) {
      fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
      failed = 1;
      continue;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.') continue;
      if (n == cap) {
        cap = cap ? cap * 2 : 64;
        char **nn = realloc(names, cap * sizeof *names);
        if (!nn) {
          failed = 1;
          break;
        }
        names = nn;
      }
      size_t l = strlen(argv[i]) + strlen(e->d_name) + 2;
      if (!(names[n] = malloc(l))) {
        failed = 1;
        break;
      }
      snprintf(names[n], l, "%s/%s", argv[i], e->d_name);
      n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_names); /* the same order on every machine */
    for (size_t k = 0; k < n; k++) {
      if (stat(names[k], &st) == 0 && S_ISREG(st.st_mode)) failed |= run_file(names[k], &count);
      free(names[k]);
    }
    free(names);
  }
  printf("replay: %zu input%s, %s\n", count, count == 1 ? "" : "s", failed ? "errors" : "ok");
  if (failed) return 1;
  return count ? 0 : 77;
}
