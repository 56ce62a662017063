/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cmd_demo.c -- `sealprov demo`: the whole path on one screen. A small insecure
 * setup of a 10-partition job in a temporary directory, proving through the module on
 * the configured devices, verification of every proof, and a summary. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "circuit.h"
#include "cli.h"
#include "g16_util.h"
#include "spa.h"

/* Used when neither -c nor the installed sample exists: two CPU devices, so even a
 * bare machine shows a job spread over devices. */
static const char builtin_ini[] =
    "; written by `sealprov demo`: two CPU devices\n"
    "[provider]\nlog_level = warn\nverify_proofs = true\n\n"
    "[cpu0]\ntype = cpu\nworkers = 1\n\n"
    "[cpu1]\ntype = cpu\nworkers = 1\n";

static void demo_usage(FILE *f) {
  fprintf(f,
          "usage: sealprov demo [--plugin MODULE] [-c INI] [--constraints N] [--partitions P]\n"
          "                     [--keep] [--json]\n"
          "  Sets up a sealing-shaped job (default 10 partitions of 2^12 constraints; insecure\n"
          "  parameters) in a temporary directory, proves it through the module on the\n"
          "  devices of INI (default $SEALPROV_CONFIG, else in a build tree the sample\n"
          "  conf/sealprov.ini of its sources, else " SP_DEFAULT_CONFIG
          " if it exists, else\n"
          "  two CPU devices), verifies every proof with the module's verify() and prints a\n"
          "  summary. --keep leaves the directory. Exit status 0 only if every proof\n"
          "  verifies.\n");
}

int cmd_demo(int argc, char **argv) {
  enum { O_CONSTRAINTS = 256, O_PARTITIONS, O_KEEP };
  static const struct option opts[] = {
      {"constraints", required_argument, NULL, O_CONSTRAINTS},
      {"partitions", required_argument, NULL, O_PARTITIONS},
      {"keep", no_argument, NULL, O_KEEP},
      {NULL, 0, NULL, 0},
  };
  sp_cli_args a = {
      .usage = demo_usage, .takes = SP_CLI_PLUGIN | SP_CLI_CONFIG | SP_CLI_JSON, .opts = opts};
  uint64_t constraints = 4096, parts = 10;
  bool keep = false;
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
    switch (c) {
      case O_CONSTRAINTS:
        if (!sp_cli_u64("--constraints", optarg, UINT64_C(1) << 22, &constraints)) return 2;
        break;
      case O_PARTITIONS:
        if (!sp_cli_u64("--partitions", optarg, 1000, &parts)) return 2;
        if (parts == 0) {
          sp_cli_error("--partitions: 0; a job has at least one partition");
          return 2;
        }
        break;
      case O_KEEP: keep = true; break;
    }
  }
  if (c < 0) return a.status;
  if (!sp_cli_operands(&a, argc, argv, 0, 0, "")) return a.status;
  const char *ini = a.config;
  bool json = a.json;
  const char *tmp = getenv("TMPDIR");
  char dir[512], path[700], ini_path[700];
  snprintf(dir, sizeof dir, "%s/sealprov-demo-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    sp_cli_error("cannot make a temporary directory %s: %s", dir, strerror(errno));
    return 1;
  }
  /* which device configuration: -c, $SEALPROV_CONFIG, the build tree's or the installed
   * sample, else two CPU devices of our own */
  const char *ini_source = sp_cli_config_source(ini);
  const char *env = getenv("SEALPROV_CONFIG");
  if (!ini && !(env && *env)) {
    snprintf(ini_path, sizeof ini_path, "%s", sp_cli_config_path(NULL));
    if (access(ini_path, R_OK) != 0) {
      snprintf(ini_path, sizeof ini_path, "%s/demo.ini", dir);
      FILE *f = fopen(ini_path, "w");
      if (!f || fputs(builtin_ini, f) < 0 || fclose(f) != 0) {
        sp_cli_error("cannot write %s: %s", ini_path, strerror(errno));
        g16_remove_tree(dir);
        return 1;
      }
      ini_source = "built-in (two CPU devices)";
    }
    ini = ini_path;
  }
  const char *ini_shown = sp_cli_config_path(ini);
  int ret = 1;
  size_t n = (size_t)parts;
  sp_spa **spa = calloc(n, sizeof *spa);
  sealprov_assignment *asg = calloc(n, sizeof *asg);
  uint8_t *proofs = calloc(n, 192);
  bool *ok = calloc(n, sizeof *ok);
  g16_prove_report rep = {.results = calloc(n, sizeof(sealprov_partition_result)),
                          .device_names = calloc(n, 64)};
  sp_cli_host h = {0};
  sealprov_srs *vk = NULL;
  char err[1024] = "";
  if (!spa || !asg || !proofs || !ok || !rep.results || !rep.device_names) {
    sp_cli_error("out of memory");
    goto out;
  }

  uint64_t seed = sp_random_seed();
  if (!json)
    printf(
        "sealprov demo: %zu partitions of %llu constraints in %s\n"
        "  devices: %s (%s)\n"
        "  setup:   insecure parameters (seed %llu), for this demo only\n",
        n, (unsigned long long)constraints, dir, ini_shown, ini_source, (unsigned long long)seed);
  g16_setup_meter gm = {.stage = ""};
  sp_progress pr = {.fn = g16_setup_progress, .user = &gm};
  sp_setup_opts o = {.progress = &pr,
                     .constraints = constraints,
                     .inputs = 8,
                     .partitions = (uint32_t)n,
                     .shape = SP_SHAPE_SEALING,
                     .seed = seed,
                     .out_dir = dir,
                     .nthreads = g16_ncpus()};
  sp_setup_result sr;
  double t0 = sp_cli_now_ms();
  sp_cli_note("setting up %zu partitions of %llu constraints", n, (unsigned long long)constraints);
  if (sp_setup_run(&o, &sr, err, sizeof err) != SEALPROV_OK) {
    sp_cli_error("setup: %s", err);
    goto out;
  }
  double setup_ms = sp_cli_now_ms() - t0;
  if (!json)
    printf(
        "  setup:   %.0f ms (domain 2^%u, %llu aux variables, a-density %.1f %%, b-density "
        "%.1f %%)\n",
        setup_ms, sr.info.log_domain, (unsigned long long)sr.info.aux_size,
        100.0 * (double)sr.info.a_aux_popcount / (double)sr.info.aux_size,
        100.0 * (double)sr.info.b_aux_popcount / (double)sr.info.aux_size);
  for (size_t i = 0; i < n; i++) {
    char name[64];
    sp_partition_name(name, sizeof name, (uint32_t)i, (uint32_t)n);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (sp_spa_read(path, &spa[i], err, sizeof err) != SEALPROV_OK) {
      sp_cli_error("%s", err);
      goto out;
    }
    asg[i] = spa[i]->asg;
  }
  if (!sp_cli_host_open(&h, ini)) goto out;
  snprintf(path, sizeof path, "%s/circuit.params", dir);
  int prc = g16_prove_partitions(&h, path, asg, n, false, sp_cli_progress, proofs, &rep);
  if (prc != 0) {
    sp_cli_error("proving failed: %s: %s", g16_status_name(rep.status), rep.detail);
    goto out;
  }
  snprintf(path, sizeof path, "%s/proofs.bin", dir);
  if (!sp_cli_output_write("demo", path, proofs, 192 * n)) goto out;

  /* verify every proof against the verifying key file, as a third party would: the
   * module's vk_load and verify() */
  snprintf(path, sizeof path, "%s/circuit.vk", dir);
  if (h.vt->vk_load(h.p, path, &vk) != SEALPROV_OK) {
    sp_cli_error("%s", h.vt->last_error());
    goto out;
  }
  size_t good = 0;
  sp_cli_note("verifying %zu proofs with %s", n, path);
  t0 = sp_cli_now_ms();
  for (size_t i = 0; i < n; i++) {
    int valid = 0;
    if (g16_verify_partition(&h, vk, &asg[i], spa[i]->path, proofs + SEALPROV_PROOF_BYTES * i,
                             &valid, err, sizeof err) == SEALPROV_OK &&
        valid)
      good++;
    ok[i] = valid != 0;
  }
  double verify_ms = sp_cli_now_ms() - t0;
  ret = good == n ? 0 : 1;

  if (json) {
    printf("{\"dir\": ");
    sp_cli_json_str(stdout, dir);
    printf(", \"kept\": %s, \"ini\": ", keep ? "true" : "false");
    sp_cli_json_str(stdout, ini_shown);
    printf(
        ", \"constraints\": %llu, \"partitions\": %zu, \"setup_ms\": %.1f, \"load_ms\": %.1f, "
        "\"prove_ms\": %.1f, \"verify_ms\": %.1f, \"devices_used\": %zu, \"verified\": %zu, "
        "\"results\": [",
        (unsigned long long)constraints, n, setup_ms, rep.load_ms, rep.prove_ms, verify_ms,
        rep.devices_used, good);
    for (size_t i = 0; i < n; i++) {
      printf("%s{\"index\": %zu, \"device\": %d, \"device_name\": ", i ? ", " : "", i,
             rep.results[i].device);
      sp_cli_json_str(stdout, rep.device_names[i]);
      printf(", \"attempts\": %u, \"run_ms\": %.1f, \"valid\": %s}", rep.results[i].attempts,
             rep.results[i].run_ms, ok[i] ? "true" : "false");
    }
    printf("]}\n");
  } else {
    printf("  %-5s %-12s %8s %10s  %s\n", "part", "device", "attempts", "run_ms", "verified");
    for (size_t i = 0; i < n; i++)
      printf("  %-5zu %-12s %8u %10.1f  %s\n", i, rep.device_names[i], rep.results[i].attempts,
             rep.results[i].run_ms, ok[i] ? "yes" : "NO");
    printf(
        "  proving: %.0f ms for %zu partition%s on %zu device%s (parameters loaded in %.0f ms)\n",
        rep.prove_ms, n, sp_cli_plural(n), rep.devices_used, sp_cli_plural(rep.devices_used),
        rep.load_ms);
    printf("  verify:  %zu of %zu proof%s verif%s (%.0f ms)\n", good, n, sp_cli_plural(n),
           good == 1 ? "ies" : "y", verify_ms);
    printf("%s\n", ret == 0 ? "demo OK" : "demo FAILED: some proofs do not verify");
  }
out:
  if (vk != NULL) h.vt->srs_release(vk);
  sp_cli_host_close(&h);
  for (size_t i = 0; spa && i < n; i++) sp_spa_free(spa[i]);
  free(spa);
  free(asg);
  free(proofs);
  free(ok);
  free(rep.results);
  free(rep.device_names);
  if (keep)
    fprintf(stderr, "sealprov demo: kept %s\n", dir); /* a result, not progress */
  else
    g16_remove_tree(dir);
  return ret;
}
