/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_cli_lines.c -- the CLI's progress lines (tools/cli_base.c), from the module's load
 * lines and the meters, as a user reads them: the sizes in the unit the file's size needs
 * (a 6.1 MB file is not "0.0 of 0.0 MB" nor "10.0 MB"), each line once (the module's
 * last progress line and its "done" line are both 100 %), the noun of what is loaded, and
 * a meter that does not repeat the command's name. The module's lines are fed to the log
 * callback the CLI gives the module, so no load of that size is needed. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static int fails;

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  static char buf[8192];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

static size_t count(const char *text, const char *what) {
  size_t n = 0;
  for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what)) n++;
  return n;
}

static void expect(const char *text, const char *what, size_t times, const char *why) {
  size_t n = count(text, what);
  if (n == times) return;
  fprintf(stdout, "FAIL: %s: \"%s\" %zu times, expected %zu; the lines:\n%s\n", why, what, n, times,
          text);
  fails++;
}

int main(void) {
  char dir[] = "/tmp/sp_lines_XXXXXX";
  if (mkdtemp(dir) == NULL) return 99;
  char params[64], vk[64], err[64];
  snprintf(params, sizeof params, "%s/circuit.params", dir);
  snprintf(vk, sizeof vk, "%s/circuit.vk", dir);
  snprintf(err, sizeof err, "%s/stderr", dir);
  /* a parameter file of 6,127,128 bytes (sparse: only its size matters) */
  FILE *pf = fopen(params, "wb");
  if (pf == NULL || ftruncate(fileno(pf), 6127128) != 0) return 99;
  fclose(pf);
  FILE *vf = fopen(vk, "wb"); /* and a .vk of 1252 bytes */
  if (vf == NULL || ftruncate(fileno(vf), 1252) != 0) return 99;
  fclose(vf);
  if (freopen(err, "w", stderr) == NULL) return 99;
  sp_cli_progress = true;
  sp_cli_cmd = "prove";
  char line[512];
  /* what the module logs for it (its GB figures have two decimals) */
  static const char *const lines[] = {
      "%s: 17.0%% (0.00 of 0.01 GB, vector h), 1000 points checked, 0.01 GB/s, 2000 points/s, 0.5 "
      "s",
      "%s: 100.0%% (0.01 of 0.01 GB, vector b_g2), 9000 points checked, 0.01 GB/s, 2000 points/s, "
      "1.2 s",
      "%s: done 100.0%% (0.01 of 0.01 GB, vector b_g2), 9000 points checked, 0.01 GB/s, 2000 "
      "points/s, 1.2 s",
  };
  for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
    char head[128];
    snprintf(head, sizeof head, "srs_load %s", params);
    snprintf(line, sizeof line, lines[i], head);
    sp_cli_module_log(NULL, SEALPROV_LOG_INFO, line);
  }
  /* a verifying key: another file, another noun */
  sp_cli_load_noun = "the verifying key";
  snprintf(line, sizeof line,
           "srs_load %s: 50.0%% (0.00 of 0.00 GB, vector ic), 3 points checked, 0.00 GB/s, "
           "10 points/s, 0.1 s",
           vk);
  sp_cli_module_log(NULL, SEALPROV_LOG_INFO, line);
  /* a meter named as its command */
  sp_cli_cmd = "bench cpu";
  sp_cli_meter m;
  sp_cli_meter_start(&m, "bench cpu");
  sp_cli_meter_step(&m, 8, 8, "figures");
  sp_cli_cmd = "setup";
  sp_cli_meter_start(&m, "the partition files");
  sp_cli_meter_step(&m, 1, 1, "files");
  fflush(stderr);
  const char *out = read_text(err);
  if (out == NULL) return 99;
  expect(out, "sealprov prove: loading the parameters:  17 % (1.0 of 6.1 MB, vector h), 0.5 s, ETA",
         1, "a 6.1 MB file: its size, in MB");
  expect(out, "loading the parameters: 100 % (6.1 of 6.1 MB, vector b_g2), 1.2 s\n", 1,
         "the 100 % line, once");
  expect(out, "0.0 of 0.0", 0, "no size of nothing");
  expect(out, "10.0 MB", 0, "no size rounded up from GB");
  expect(out, "sealprov prove: loading the verifying key:  50 % (0.6 of 1.3 KB, vector ic)", 1,
         "a .vk: its noun, its size in KB");
  expect(out, "sealprov bench cpu: 100 % (8 of 8 figures)", 1, "a meter named as its command");
  expect(out, "bench cpu: bench cpu", 0, "the command named twice");
  expect(out, "sealprov setup: the partition files: 100 % (1 of 1 file)", 1, "one file");
  unlink(params);
  unlink(vk);
  unlink(err);
  rmdir(dir);
  if (fails) {
    printf("%d check(s) failed\n", fails);
    return 1;
  }
  printf("all progress line checks passed\n");
  return 0;
}
