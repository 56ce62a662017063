/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* main.c -- `sealprov`: global options, then one command from the table below. */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* The developer and benchmark commands are weak references: they are linked into two
 * programs of their own, sealprov-kit (with the kit) and sealprov-bench (bench/), not
 * into the host library this file belongs to (docs/design.md, "The CLI"). In `sealprov`
 * they stay NULL and the command line is handed to the program that has them
 * (run_program); in that program a command this build lacks (`bench gpu` without CUDA)
 * is reported as absent. */
#pragma weak cmd_setup
#pragma weak cmd_inspect
#pragma weak cmd_wtns
#pragma weak cmd_bench
#pragma weak cmd_bench_witness
#pragma weak sp_cmd_bench_cpu
#pragma weak sp_cmd_bench_gpu
#pragma weak cmd_stress
#pragma weak cmd_soak

/* Where a command's code is: the host library (every program), or one of the programs
 * that `sealprov` hands a command line to. */
enum { IN_HOST, IN_KIT, IN_BENCH };
static const struct program {
  const char *name;
  const char *what; /* "this is a ... of NAME" when it is not installed */
  const char *dir;  /* its folder in a build tree */
} programs[] = {
    [IN_KIT] = {"sealprov-kit", "developer command", "kit/cli"},
    [IN_BENCH] = {"sealprov-bench", "benchmark command", "bench"},
};

typedef struct command {
  const char *name;
  const char *sub; /* second word (`bench cpu`), or NULL */
  int (*fn)(int argc, char **argv);
  const char *summary;
  int prog;  /* IN_*: the program that has it */
  bool cuda; /* only in a CUDA build */
} command;

/* One line per command. Two-word commands come before their one-word parent. */
static const command commands[] = {
    {"devices", NULL, cmd_devices, "show the devices of an INI file as the module binds them",
     IN_HOST, false},
    {"check-config", NULL, cmd_check_config, "check an INI file: parse, resolve, open, close",
     IN_HOST, false},
    {"setup", NULL, cmd_setup, "make test parameters and partition assignments", IN_KIT, false},
    {"prove", NULL, cmd_prove, "prove partition files through the module", IN_HOST, false},
    {"verify", NULL, cmd_verify, "verify proofs with a verifying key (.vk)", IN_HOST, false},
    {"inspect", NULL, cmd_inspect, "tell what a file of the project is and what it holds", IN_KIT,
     false},
    {"demo", NULL, cmd_demo, "set up, prove and verify a multi-partition job", IN_HOST, false},
    {"stress", NULL, cmd_stress, "many concurrent jobs from host threads, every proof verified",
     IN_BENCH, false},
    {"soak", NULL, cmd_soak, "hours of mixed traffic in minutes; host and GPU memory judged flat",
     IN_BENCH, false},
    {"bench", "cpu", sp_cmd_bench_cpu, "benchmark the CPU curve library (JSON)", IN_BENCH, false},
    {"bench", "gpu", sp_cmd_bench_gpu, "benchmark the CUDA engine (JSON)", IN_BENCH, true},
    {"bench", "witness", cmd_bench_witness,
     "witness-only against full-assignment partitions (JSON)", IN_BENCH, false},
    {"bench", NULL, cmd_bench, "benchmark Groth16 partitions (JSON)", IN_BENCH, false},
    {"wtns", NULL, cmd_wtns, "write a partition's witness as a circom .wtns file", IN_KIT, false},
    {"help", NULL, NULL, "this list, or a command's options: sealprov help COMMAND", IN_HOST,
     false},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* Whether this program is the one that has prog's commands. */
static bool is_program(int prog) {
  switch (prog) {
    case IN_KIT: return cmd_setup != NULL;
    case IN_BENCH: return cmd_bench != NULL;
    default: return true;
  }
}

/* Whether this build has the command: in this program, or in the one it names. */
static bool available(const command *c) {
  if (c->fn != NULL || !strcmp(c->name, "help")) return true;
  if (c->prog == IN_HOST || is_program(c->prog)) return false;
#ifndef SP_BENCHMARKS /* configure --disable-benchmarks: no sealprov-bench */
  if (c->prog == IN_BENCH) return false;
#endif
#ifndef HAVE_CUDA
  if (c->cuda) return false;
#endif
  return true;
}

/* Whether the command is absent only because this build has no CUDA: its error names
 * the configure option that would give it. */
static bool needs_cuda(const command *c) {
#if defined(HAVE_CUDA)
  (void)c;
  return false;
#elif !defined(SP_BENCHMARKS) /* a benchmark command is absent for that reason first */
  return c->cuda && c->prog != IN_BENCH;
#else
  return c->cuda;
#endif
}

static char **main_argv;

/* Hands the whole command line to the program that has prog's commands: next to this
 * program, in its folder of a build tree, else in the configured $(pkglibexecdir).
 * Returns only when that fails (status 2), or -1 when this program is that one. */
static int run_program(int prog) {
  if (is_program(prog) || main_argv == NULL) return -1;
  const struct program *p = &programs[prog];
  char here[PATH_MAX], cand[3][2 * PATH_MAX + 64];
  int ncand = 0;
  ssize_t n = readlink("/proc/self/exe", here, sizeof here - 1);
  if (n > 0) {
    here[n] = 0;
    char *slash = strrchr(here, '/');
    if (slash != NULL) {
      *slash = 0;
      snprintf(cand[ncand++], sizeof cand[0], "%s/%s", here, p->name);
    }
  }
  const char *tree = sp_cli_build_tree();
  if (tree != NULL) {
    snprintf(cand[ncand], sizeof cand[0], "%s/%s/%s", tree, p->dir, p->name);
    if (ncand == 0 || strcmp(cand[ncand], cand[0]) != 0) ncand++;
  }
  snprintf(cand[ncand++], sizeof cand[0], "%s/%s", SP_PKGLIBEXECDIR, p->name);
  for (int k = 0; k < ncand; k++) {
    if (access(cand[k], X_OK) != 0) continue;
    main_argv[0] = cand[k];
    fflush(NULL);
    execv(cand[k], main_argv);
    sp_cli_error("cannot run %s: %s", cand[k], strerror(errno));
    return 2;
  }
  sp_cli_error("this is a %s of %s, which is not installed (looked for %s%s%s%s%s)", p->what,
               p->name, cand[0], ncand > 2 ? ", " : "", ncand > 2 ? cand[1] : "",
               ncand > 1 ? " and " : "", ncand > 1 ? cand[ncand - 1] : "");
  return 2;
}

int sp_cli_run_kit(void) { return run_program(IN_KIT); }

static void usage(FILE *f) {
  fprintf(f,
          "usage: sealprov [-q | -v | -vv] [--progress | --no-progress] [--plugin MODULE]\n"
          "                COMMAND [ARGS...]\n"
          "       sealprov help [COMMAND]    (or sealprov COMMAND --help)\n"
          "\n"
          "commands:\n");
  for (size_t i = 0; i < NCOMMANDS; i++) {
    const command *c = &commands[i];
    if (!available(c)) continue; /* not in this build */
    char name[32];
    snprintf(name, sizeof name, "%s%s%s", c->name, c->sub ? " " : "", c->sub ? c->sub : "");
    fprintf(f, "  %-14s %s\n", name, c->summary);
  }
  fprintf(f,
          "\n"
          "options (before COMMAND; all but --version after it too, --plugin after the\n"
          "commands that load the module):\n"
          "  --plugin MODULE  the module to load (default $SEALPROV_PLUGIN, else\n"
          "                   ../plugin/.libs/sealprov.so next to this program in a build\n"
          "                   tree, else " SP_DEFAULT_PLUGIN
          ")\n"
          "  -q               only errors (no progress, module errors only)\n"
          "  -v, -vv          module info / debug messages on stderr\n"
          "  --progress       a line per stage on stderr (default when it is a terminal);\n"
          "                   long steps show a percentage and an ETA\n"
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
    if (available(c)) return run_program(c->prog); /* sealprov-kit's or sealprov-bench's */
    if (needs_cuda(c))
      sp_cli_error(
          "'%s' needs a build with CUDA: this one was configured without it (configure "
          "--with-cuda, with nvcc on the PATH or in /usr/local/cuda)",
          name);
    else
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
      sp_cli_error("unknown command '%s'; `sealprov help` lists the commands", argv[i]);
      return 2;
    }
    usage(stdout);
    return 0;
  }
  char *help_argv[3] = {argv[c->sub ? i + 1 : i], (char *)"--help", NULL};
  if (c->fn == NULL && available(c)) {
    /* the program that has the command shows its help: `sealprov-kit CMD [SUB] --help` */
    static char *kit_argv[5];
    int k = 0;
    kit_argv[k++] = argv[0];
    kit_argv[k++] = (char *)c->name;
    if (c->sub) kit_argv[k++] = (char *)c->sub;
    kit_argv[k++] = (char *)"--help";
    kit_argv[k] = NULL;
    main_argv = kit_argv;
  }
  return run_command(c, 2, help_argv, 0);
}

static void main_usage(FILE *f) { usage(f); }

int main(int argc, char **argv) {
  main_argv = argv;
  sp_cli_progress = isatty(STDERR_FILENO) != 0; /* --progress, --no-progress, -q change it */
  static const struct option own[] = {{"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0}};
  sp_cli_args a = {.usage = main_usage, .takes = SP_CLI_PLUGIN | SP_CLI_IN_ORDER, .opts = own};
  int c;
  while ((c = sp_cli_getopt(&a, argc, argv)) > 0) {
    if (c == 'V') {
      printf("sealprov %s (module ABI %d.%d)\n", PACKAGE_VERSION, SEALPROV_ABI_MAJOR,
             SEALPROV_ABI_MINOR);
      return 0;
    }
  }
  if (c < 0) return a.status;
  int i = a.first;
  if (i >= argc) { /* the list of commands is what is missing: the error, then the list */
    sp_cli_error("no command given; the commands:");
    usage(stderr);
    return 2;
  }
  if (!strcmp(argv[i], "help")) return cmd_help(argc, argv, i + 1);
  const command *cmd = find_command(argc, argv, i);
  if (cmd == NULL) {
    sp_cli_error("unknown command '%s'; `sealprov help` lists the commands", argv[i]);
    return 2;
  }
  return run_command(cmd, argc, argv, cmd->sub != NULL ? i + 1 : i);
}
