/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* bench_gpu_main.c -- `bench_gpu` of tests/cuda/standalone.sh: sp_cmd_bench_gpu (the
 * `sealprov bench gpu` command) as its own program, for machines without the CLI's
 * dependencies. */
#include "../../tools/cli.h"

int main(int argc, char **argv) {
  argv[0] = (char *)"gpu";
  return sp_cmd_bench_gpu(argc, argv);
}
