/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* bench_cpu.h -- `sealprov bench cpu`: throughput of the CPU curve library
 * (plugin/bls12_381) as one JSON object on stdout; and what the bench commands of
 * sealprov-bench share.
 *
 * argv[0] is the command's own name ("cpu"); options are parsed with sp_cli_getopt, as
 * every sealprov command does (tools/cli.h). Returns the process exit status: 0 success,
 * 1 failure (allocation), 2 usage error. Not thread-safe (getopt). */
#ifndef SEALPROV_TOOLS_BENCH_CPU_H
#define SEALPROV_TOOLS_BENCH_CPU_H

#include <stdbool.h>

int sp_cmd_bench_cpu(int argc, char **argv);

/* A CUDA build that sees at least one GPU (cmd_bench.c): where bench load and bench
 * witness --size make their parameters' fixed-base products on GPU 0. */
bool sp_bench_gpu_visible(void);
/* KiB of a /proc/self/status line ("VmRSS", "VmHWM"; 0 if absent). */
unsigned long long sp_bench_status_kib(const char *key);
/* Resets VmHWM to the current RSS (Linux >= 4.0); false when not possible. */
bool sp_bench_reset_peak_rss(void);

#endif
