/* main.c -- `sealprov`: global options, then one subcommand from the table below. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Commands of other parts of the project are weak references: a build that does not
 * link one (e.g. `bench gpu` without CUDA) reports it as absent instead of failing
 * to link. */
#pragma weak cmd_setup
#pragma weak cmd_prove
#pragma weak cmd_verify
#pragma weak cmd_demo
#pragma weak cmd_bench
#pragma weak cmd_stress
#pragma weak sp_cmd_bench_cpu
#pragma weak sp_cmd_bench_gpu

typedef struct command {
  const char *name;
  const char *sub; /* second word (`bench cpu`), or NULL */
  int (*fn)(int argc, char **argv);
  const char *summary;
} command;

/* One line per command. Two-word commands come before their one-word parent. */
static const command commands[] = {
    {"devices", NULL, cmd_devices, "show the devices of an INI file as the module binds them"},
    {"check-config", NULL, cmd_check_config, "check an INI file: parse, resolve, open, close"},
    {"setup", NULL, cmd_setup, "make test parameters and partition assignments"},
    {"prove", NULL, cmd_prove, "prove partition files through the module"},
    {"verify", NULL, cmd_verify, "verify proofs against parameters"},
    {"demo", NULL, cmd_demo, "set up, prove and verify a multi-partition job"},
    {"stress", NULL, cmd_stress, "many concurrent jobs from host threads, every proof verified"},
    {"bench", "cpu", sp_cmd_bench_cpu, "benchmark the CPU curve library (JSON)"},
    {"bench", "gpu", sp_cmd_bench_gpu, "benchmark the CUDA engine (JSON)"},
    {"bench", NULL, cmd_bench, "benchmark Groth16 partitions (JSON)"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f) {
  fprintf(f,
          "usage: sealprov [-q | -v | -vv] [--plugin MODULE] COMMAND [ARGS...]\n"
          "       sealprov COMMAND --help\n"
          "\n"
          "commands:\n");
  for (size_t i = 0; i < NCOMMANDS; i++) {
    const command *c = &commands[i];
    if (c->fn == NULL) continue; /* not part of this build */
    char name[32];
    snprintf(name, sizeof name, "%s%s%s", c->name, c->sub ? " " : "", c->sub ? c->sub : "");
    fprintf(f, "  %-14s %s\n", name, c->summary);
  }
  fprintf(f,
          "\n"
          "options:\n"
          "  --plugin MODULE  the module to load (also accepted after most commands;\n"
          "                   default $SEALPROV_PLUGIN, else " SP_DEFAULT_PLUGIN ")\n"
          "  -q               only errors from the module\n"
          "  -v, -vv          module info / debug messages on stderr\n"
          "  --version        print the version\n");
}

int main(int argc, char **argv) {
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--version")) {
      printf("sealprov %s (module ABI %d.%d)\n", PACKAGE_VERSION, SEALPROV_ABI_MAJOR,
             SEALPROV_ABI_MINOR);
      return 0;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      sp_cli_log_level = SEALPROV_LOG_ERROR;
    } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
      sp_cli_log_level = SEALPROV_LOG_INFO;
    } else if (!strcmp(a, "-vv")) {
      sp_cli_log_level = SEALPROV_LOG_DEBUG;
    } else if (!strcmp(a, "--plugin") || !strncmp(a, "--plugin=", 9)) {
      const char *path = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
      if (path == NULL || !*path) {
        fprintf(stderr, "sealprov: --plugin needs a module path\n");
        return 2;
      }
      /* Every command, including those that parse their own --plugin, honours it. */
      setenv("SEALPROV_PLUGIN", path, 1);
    } else {
      fprintf(stderr, "sealprov: unknown option '%s'\n\n", a);
      usage(stderr);
      return 2;
    }
  }
  if (i >= argc) {
    usage(stderr);
    return 2;
  }
  const char *name = argv[i];
  const char *next = i + 1 < argc ? argv[i + 1] : NULL;
  for (size_t k = 0; k < NCOMMANDS; k++) {
    const command *c = &commands[k];
    if (strcmp(c->name, name) != 0) continue;
    if (c->sub != NULL && (next == NULL || strcmp(c->sub, next) != 0)) continue;
    if (c->fn == NULL) {
      fprintf(stderr, "sealprov: '%s%s%s' is not part of this build\n", c->name,
              c->sub ? " " : "", c->sub ? c->sub : "");
      return 2;
    }
    int skip = c->sub != NULL ? i + 1 : i; /* argv[0] of the command is its last word */
    return c->fn(argc - skip, argv + skip);
  }
  fprintf(stderr, "sealprov: unknown command '%s'\n\n", name);
  usage(stderr);
  return 2;
}
