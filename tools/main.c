/* main.c -- `sealprov`: global options, then one subcommand from the table below. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "witness.h"

/* Commands of other parts of the project are weak references: a build that does not
 * link one (e.g. `bench gpu` without CUDA) reports it as absent instead of failing
 * to link. */
#pragma weak cmd_setup
#pragma weak cmd_prove
#pragma weak cmd_verify
#pragma weak cmd_demo
#pragma weak cmd_bench
#pragma weak cmd_stress
#pragma weak cmd_soak
#pragma weak cmd_inspect
#pragma weak cmd_wtns
#pragma weak cmd_bench_witness
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
    {"verify", NULL, cmd_verify, "verify proofs with a verifying key (.vk)"},
    {"inspect", NULL, cmd_inspect, "show the sizes and public inputs of .spa, .params, .vk files"},
    {"demo", NULL, cmd_demo, "set up, prove and verify a multi-partition job"},
    {"stress", NULL, cmd_stress, "many concurrent jobs from host threads, every proof verified"},
    {"soak", NULL, cmd_soak, "hours of mixed traffic in minutes; host and GPU memory judged flat"},
    {"bench", "cpu", sp_cmd_bench_cpu, "benchmark the CPU curve library (JSON)"},
    {"bench", "gpu", sp_cmd_bench_gpu, "benchmark the CUDA engine (JSON)"},
    {"bench", "witness", cmd_bench_witness, "witness-only against full-assignment partitions (JSON)"},
    {"bench", NULL, cmd_bench, "benchmark Groth16 partitions (JSON)"},
    {"wtns", NULL, cmd_wtns, "write a partition's witness as a circom .wtns file"},
    {"help", NULL, NULL, "this list, or a command's options: sealprov help COMMAND"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f) {
  fprintf(f,
          "usage: sealprov [-q | -v | -vv] [--progress | --no-progress] [--plugin MODULE]\n"
          "                COMMAND [ARGS...]\n"
          "       sealprov help [COMMAND]    (or sealprov COMMAND --help)\n"
          "\n"
          "commands:\n");
  for (size_t i = 0; i < NCOMMANDS; i++) {
    const command *c = &commands[i];
    if (c->fn == NULL && strcmp(c->name, "help") != 0) continue; /* not in this build */
    char name[32];
    snprintf(name, sizeof name, "%s%s%s", c->name, c->sub ? " " : "", c->sub ? c->sub : "");
    fprintf(f, "  %-14s %s\n", name, c->summary);
  }
  fprintf(f,
          "\n"
          "options:\n"
          "  --plugin MODULE  the module to load (also accepted after most commands;\n"
          "                   default $SEALPROV_PLUGIN, else ../plugin/.libs/sealprov.so\n"
          "                   next to this program in a build tree, else\n"
          "                   " SP_DEFAULT_PLUGIN ")\n"
          "  -q               only errors (no progress, module errors only)\n"
          "  -v, -vv          module info / debug messages on stderr\n"
          "  --progress       a line per stage on stderr (default when it is a terminal)\n"
          "  --no-progress    no progress lines\n"
          "  --version        print the version\n"
          "\n"
          "exit status: 0 success, 1 failure (the message says why), 2 bad usage.\n"
          "environment: SEALPROV_PLUGIN, SEALPROV_CONFIG, SEALPROV_TIMELINE, SEALPROV_STATS\n"
          "(see man sealprov).\n");
}

/* Finds the table entry for argv[i] (and argv[i + 1] for two-word commands). */
static const command *find_command(int argc, char **argv, int i) {
  const char *name = argv[i];
  const char *next = i + 1 < argc ? argv[i + 1] : NULL;
  for (size_t k = 0; k < NCOMMANDS; k++) {
    const command *c = &commands[k];
    if (strcmp(c->name, name) != 0) continue;
    if (c->sub != NULL && (next == NULL || strcmp(c->sub, next) != 0)) continue;
    return c;
  }
  return NULL;
}

/* "bench cpu" or "prove" into buf. */
static const char *command_name(const command *c, char *buf, size_t len) {
  snprintf(buf, len, "%s%s%s", c->name, c->sub ? " " : "", c->sub ? c->sub : "");
  return buf;
}

/* Runs c with argv[skip..]; its argv[0] is the command's last word. */
static int run_command(const command *c, int argc, char **argv, int skip) {
  static char name[64];
  sp_cli_cmd = command_name(c, name, sizeof name);
  if (c->fn == NULL) {
    sp_cli_error("'%s' is not part of this build", name);
    return 2;
  }
  return c->fn(argc - skip, argv + skip);
}

/* `sealprov help [COMMAND [SUB]]`: the list, or the command's own --help. */
static int cmd_help(int argc, char **argv, int i) {
  if (i >= argc) {
    usage(stdout);
    return 0;
  }
  const command *c = find_command(argc, argv, i);
  if (c == NULL || !strcmp(c->name, "help")) {
    if (c == NULL) {
      sp_cli_cmd = "help";
      sp_cli_error("unknown command '%s'; the commands are:", argv[i]);
      usage(stderr);
      return 2;
    }
    usage(stdout);
    return 0;
  }
  char *help_argv[3] = {argv[c->sub ? i + 1 : i], (char *)"--help", NULL};
  return run_command(c, 2, help_argv, 0);
}

int main(int argc, char **argv) {
  int i = 1;
  int progress = -1; /* -1: when stderr is a terminal */
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
      progress = 0;
    } else if (!strcmp(a, "--progress")) {
      progress = 1;
    } else if (!strcmp(a, "--no-progress")) {
      progress = 0;
    } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
      sp_cli_log_level = SEALPROV_LOG_INFO;
    } else if (!strcmp(a, "-vv")) {
      sp_cli_log_level = SEALPROV_LOG_DEBUG;
    } else if (!strcmp(a, "--plugin") || !strncmp(a, "--plugin=", 9)) {
      const char *path = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
      if (path == NULL || !*path) {
        sp_cli_error("--plugin needs a module path");
        return 2;
      }
      /* Every command, including those that parse their own --plugin, honours it. */
      setenv("SEALPROV_PLUGIN", path, 1);
      sp_cli_plugin_global = true;
    } else {
      sp_cli_error("unknown option '%s'", a);
      usage(stderr);
      return 2;
    }
  }
  sp_cli_progress = progress < 0 ? isatty(STDERR_FILENO) != 0 : progress != 0;
  if (i >= argc) {
    usage(stderr);
    return 2;
  }
  if (!strcmp(argv[i], "help")) return cmd_help(argc, argv, i + 1);
  const command *c = find_command(argc, argv, i);
  if (c == NULL) {
    sp_cli_error("unknown command '%s'; `sealprov help` lists the commands", argv[i]);
    usage(stderr);
    return 2;
  }
  return run_command(c, argc, argv, c->sub != NULL ? i + 1 : i);
}
