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

/* The command's options, checked. */
typedef struct demo_opts {
  uint64_t constraints, parts;
  bool keep, json;
  const char *ini; /* -c, or NULL */
} demo_opts;

/* One run: its directory and device configuration, the partitions, the proofs and
 * what became of each, the module's handles; freed by demo_free. */
typedef struct demo_run {
  char dir[512], ini_path[700];
  const char *ini, *ini_source, *ini_shown;
  size_t n;
  sp_spa **spa;
  sealprov_assignment *asg;
  uint8_t *proofs;
  bool *ok;
  g16_prove_report rep;
  sp_cli_host h;
  sealprov_srs *vk;
  uint64_t seed;
  double setup_ms, verify_ms;
  size_t good; /* proofs that verify */
} demo_run;

/* -1 when the command is to run; else its exit status (0 after --help, 2 on a usage
 * error). */
static int demo_parse(int argc, char **argv, demo_opts *o) {
  enum { O_CONSTRAINTS = 256, O_PARTITIONS, O_KEEP };
  static const struct option opts[] = {
      {"constraints", required_argument, NULL, O_CONSTRAINTS},
      {"partitions", required_argument, NULL, O_PARTITIONS},
      {"keep", no_argument, NULL, O_KEEP},
      {NULL, 0, NULL, 0},
  };
  sp_cli_args a = {
      .usage = demo_usage, .takes = SP_CLI_PLUGIN | SP_CLI_CONFIG | SP_CLI_JSON, .opts = opts};
  *o = (demo_opts){.constraints = 4096, .parts = 10};
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
    switch (c) {
      case O_CONSTRAINTS:
        if (!sp_cli_u64("--constraints", optarg, UINT64_C(1) << 22, &o->constraints)) return 2;
        break;
      case O_PARTITIONS:
        if (!sp_cli_u64("--partitions", optarg, 1000, &o->parts)) return 2;
        if (o->parts == 0) {
          sp_cli_error("--partitions: 0; a job has at least one partition");
          return 2;
        }
        break;
      case O_KEEP: o->keep = true; break;
    }
  }
  if (c < 0) return a.status;
  if (!sp_cli_operands(&a, argc, argv, 0, 0, "")) return a.status;
  o->ini = a.config;
  o->json = a.json;
  return -1;
}

/* The temporary directory, and which device configuration: -c, $SEALPROV_CONFIG, the
 * build tree's or the installed sample, else two CPU devices of our own (written into
 * the directory). False with a message, and no directory left, when either fails. */
static bool demo_dir_ini(const demo_opts *o, demo_run *r) {
  const char *tmp = getenv("TMPDIR");
  snprintf(r->dir, sizeof r->dir, "%s/sealprov-demo-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(r->dir)) {
    sp_cli_error("cannot make a temporary directory %s: %s", r->dir, strerror(errno));
    return false;
  }
  r->ini = o->ini;
  r->ini_source = sp_cli_config_source(r->ini);
  const char *env = getenv("SEALPROV_CONFIG");
  if (!r->ini && !(env && *env)) {
    snprintf(r->ini_path, sizeof r->ini_path, "%s", sp_cli_config_path(NULL));
    if (access(r->ini_path, R_OK) != 0) {
      snprintf(r->ini_path, sizeof r->ini_path, "%s/demo.ini", r->dir);
      FILE *f = fopen(r->ini_path, "w");
      if (!f || fputs(builtin_ini, f) < 0 || fclose(f) != 0) {
        sp_cli_error("cannot write %s: %s", r->ini_path, strerror(errno));
        g16_remove_tree(r->dir);
        return false;
      }
      r->ini_source = "built-in (two CPU devices)";
    }
    r->ini = r->ini_path;
  }
  r->ini_shown = sp_cli_config_path(r->ini);
  return true;
}

static bool demo_alloc(const demo_opts *o, demo_run *r) {
  size_t n = r->n = (size_t)o->parts;
  r->spa = calloc(n, sizeof *r->spa);
  r->asg = calloc(n, sizeof *r->asg);
  r->proofs = calloc(n, 192);
  r->ok = calloc(n, sizeof *r->ok);
  r->rep = (g16_prove_report){.results = calloc(n, sizeof(sealprov_partition_result)),
                              .device_names = calloc(n, 64)};
  if (r->spa && r->asg && r->proofs && r->ok && r->rep.results && r->rep.device_names) return true;
  sp_cli_error("out of memory");
  return false;
}

/* The insecure setup of the job in the directory, and its partition files read. */
static bool demo_setup(const demo_opts *o, demo_run *r) {
  char err[1024] = "", path[700];
  size_t n = r->n;
  r->seed = sp_random_seed();
  if (!o->json)
    printf(
        "sealprov demo: %zu partitions of %llu constraints in %s\n"
        "  devices: %s (%s)\n"
        "  setup:   insecure parameters (seed %llu), for this demo only\n",
        n, (unsigned long long)o->constraints, r->dir, r->ini_shown, r->ini_source,
        (unsigned long long)r->seed);
  g16_setup_meter gm = {.stage = ""};
  sp_progress pr = {.fn = g16_setup_progress, .user = &gm};
  sp_setup_opts so = {.progress = &pr,
                      .constraints = o->constraints,
                      .inputs = 8,
                      .partitions = (uint32_t)n,
                      .shape = SP_SHAPE_SEALING,
                      .seed = r->seed,
                      .out_dir = r->dir,
                      .nthreads = g16_ncpus()};
  sp_setup_result sr;
  double t0 = sp_cli_now_ms();
  sp_cli_note("setting up %zu partitions of %llu constraints", n,
              (unsigned long long)o->constraints);
  if (sp_setup_run(&so, &sr, err, sizeof err) != SEALPROV_OK) {
    sp_cli_error("setup: %s", err);
    return false;
  }
  r->setup_ms = sp_cli_now_ms() - t0;
  if (!o->json)
    printf(
        "  setup:   %.0f ms (domain 2^%u, %llu aux variables, a-density %.1f %%, b-density "
        "%.1f %%)\n",
        r->setup_ms, sr.info.log_domain, (unsigned long long)sr.info.aux_size,
        100.0 * (double)sr.info.a_aux_popcount / (double)sr.info.aux_size,
        100.0 * (double)sr.info.b_aux_popcount / (double)sr.info.aux_size);
  for (size_t i = 0; i < n; i++) {
    char name[64];
    sp_partition_name(name, sizeof name, (uint32_t)i, (uint32_t)n);
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    if (sp_spa_read(path, &r->spa[i], err, sizeof err) != SEALPROV_OK) {
      sp_cli_error("%s", err);
      return false;
    }
    r->asg[i] = r->spa[i]->asg;
  }
  return true;
}

/* The job proved through the module on the configured devices; the proofs written to
 * proofs.bin. */
static bool demo_prove(demo_run *r) {
  char path[700];
  if (!sp_cli_host_open(&r->h, r->ini)) return false;
  snprintf(path, sizeof path, "%s/circuit.params", r->dir);
  int prc =
      g16_prove_partitions(&r->h, path, r->asg, r->n, false, sp_cli_progress, r->proofs, &r->rep);
  if (prc != 0) {
    sp_cli_error("proving failed: %s: %s", g16_status_name(r->rep.status), r->rep.detail);
    return false;
  }
  snprintf(path, sizeof path, "%s/proofs.bin", r->dir);
  return sp_cli_output_write("demo", path, r->proofs, 192 * r->n);
}

/* Every proof verified against the verifying key file, as a third party would: the
 * module's vk_load and verify(). */
static bool demo_verify(demo_run *r) {
  char err[1024] = "", path[700];
  snprintf(path, sizeof path, "%s/circuit.vk", r->dir);
  if (r->h.vt->vk_load(r->h.p, path, &r->vk) != SEALPROV_OK) {
    sp_cli_error("%s", r->h.vt->last_error());
    return false;
  }
  sp_cli_note("verifying %zu proofs with %s", r->n, path);
  double t0 = sp_cli_now_ms();
  for (size_t i = 0; i < r->n; i++) {
    int valid = 0;
    if (g16_verify_partition(&r->h, r->vk, &r->asg[i], r->spa[i]->path,
                             r->proofs + SEALPROV_PROOF_BYTES * i, &valid, err,
                             sizeof err) == SEALPROV_OK &&
        valid)
      r->good++;
    r->ok[i] = valid != 0;
  }
  r->verify_ms = sp_cli_now_ms() - t0;
  return true;
}

/* The summary: a table of the partitions and the totals, or one JSON object. */
static void demo_report(const demo_opts *o, const demo_run *r) {
  const g16_prove_report *rep = &r->rep;
  size_t n = r->n;
  if (o->json) {
    printf("{\"dir\": ");
    sp_cli_json_str(stdout, r->dir);
    printf(", \"kept\": %s, \"ini\": ", o->keep ? "true" : "false");
    sp_cli_json_str(stdout, r->ini_shown);
    printf(
        ", \"constraints\": %llu, \"partitions\": %zu, \"setup_ms\": %.1f, \"load_ms\": %.1f, "
        "\"prove_ms\": %.1f, \"verify_ms\": %.1f, \"devices_used\": %zu, \"verified\": %zu, "
        "\"results\": [",
        (unsigned long long)o->constraints, n, r->setup_ms, rep->load_ms, rep->prove_ms,
        r->verify_ms, rep->devices_used, r->good);
    for (size_t i = 0; i < n; i++) {
      printf("%s{\"index\": %zu, \"device\": %d, \"device_name\": ", i ? ", " : "", i,
             rep->results[i].device);
      sp_cli_json_str(stdout, rep->device_names[i]);
      printf(", \"attempts\": %u, \"run_ms\": %.1f, \"valid\": %s}", rep->results[i].attempts,
             rep->results[i].run_ms, r->ok[i] ? "true" : "false");
    }
    printf("]}\n");
    return;
  }
  printf("  %-5s %-12s %8s %10s  %s\n", "part", "device", "attempts", "run_ms", "verified");
  for (size_t i = 0; i < n; i++)
    printf("  %-5zu %-12s %8u %10.1f  %s\n", i, rep->device_names[i], rep->results[i].attempts,
           rep->results[i].run_ms, r->ok[i] ? "yes" : "NO");
  printf("  proving: %.0f ms for %zu partition%s on %zu device%s (parameters loaded in %.0f ms)\n",
         rep->prove_ms, n, sp_cli_plural(n), rep->devices_used, sp_cli_plural(rep->devices_used),
         rep->load_ms);
  printf("  verify:  %zu of %zu proof%s verif%s (%.0f ms)\n", r->good, n, sp_cli_plural(n),
         r->good == 1 ? "ies" : "y", r->verify_ms);
  printf("%s\n", r->good == n ? "demo OK" : "demo FAILED: some proofs do not verify");
}

/* The handles and buffers freed; the directory removed, or named when --keep. */
static void demo_free(const demo_opts *o, demo_run *r) {
  if (r->vk != NULL) r->h.vt->srs_release(r->vk);
  sp_cli_host_close(&r->h);
  for (size_t i = 0; r->spa && i < r->n; i++) sp_spa_free(r->spa[i]);
  free(r->spa);
  free(r->asg);
  free(r->proofs);
  free(r->ok);
  free(r->rep.results);
  free(r->rep.device_names);
  if (o->keep)
    fprintf(stderr, "sealprov demo: kept %s\n", r->dir); /* a result, not progress */
  else
    g16_remove_tree(r->dir);
}

int cmd_demo(int argc, char **argv) {
  demo_opts o;
  int ret = demo_parse(argc, argv, &o);
  if (ret >= 0) return ret;
  demo_run r = {0};
  if (!demo_dir_ini(&o, &r)) return 1;
  ret = 1;
  if (demo_alloc(&o, &r) && demo_setup(&o, &r) && demo_prove(&r) && demo_verify(&r)) {
    ret = r.good == r.n ? 0 : 1;
    demo_report(&o, &r);
  }
  demo_free(&o, &r);
  return ret;
}
