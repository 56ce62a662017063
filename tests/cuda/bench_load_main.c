/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* bench_load_main.c -- `bench_load` of tests/cuda/standalone.sh: `sealprov bench load`
 * (tools/cmd_bench.c) as its own program, for the GPU machine, which lacks the CLI's
 * dependencies. `bench_load [--progress | --no-progress] ARGS...` is `sealprov
 * [--progress | --no-progress] bench load ARGS...`. */
#include <string.h>
#include <unistd.h>

#include "../../tools/cli.h"

int main(int argc, char **argv) {
  int i = 1;
  sp_cli_progress = isatty(STDERR_FILENO) != 0;
  if (i < argc && !strcmp(argv[i], "--progress")) {
    sp_cli_progress = true;
    i++;
  } else if (i < argc && !strcmp(argv[i], "--no-progress")) {
    sp_cli_progress = false;
    i++;
  }
  /* cmd_bench sees "bench load ARGS..." */
  static char *args[256];
  int n = 0;
  args[n++] = (char *)"bench";
  args[n++] = (char *)"load";
  for (; i < argc && n < 255; i++) args[n++] = argv[i];
  args[n] = NULL;
  return cmd_bench(n, args);
}
