/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* proc.c -- what /proc says about this process and this machine, for the figures of
 * every benchmark command (bench.h). In the bench host library: soak and stress use it
 * too, and it needs neither the module nor the kit. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

bool sp_bench_proc_kib(const char *path, const char *key, unsigned long long *kib) {
  *kib = 0;
  FILE *f = fopen(path, "r");
  if (!f) return false;
  char line[256];
  size_t kl = strlen(key);
  bool found = false;
  while (!found && fgets(line, sizeof line, f))
    if (!strncmp(line, key, kl) && line[kl] == ':') {
      *kib = strtoull(line + kl + 1, NULL, 10);
      found = true;
    }
  fclose(f);
  return found;
}

bool sp_bench_reset_peak_rss(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  bool ok = fputs("5", f) >= 0;
  return fclose(f) == 0 && ok;
}
