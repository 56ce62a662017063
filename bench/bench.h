/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* bench.h -- what the commands of sealprov-bench share, and the entry points that
 * tools/cli.h does not declare.
 *
 * A command's argv[0] is its own name ("cpu"); options are parsed with sp_cli_getopt, as
 * every sealprov command does (tools/cli.h). It returns the process exit status: 0
 * success, 1 failure, 2 usage error. Not thread-safe (getopt). */
#ifndef SEALPROV_BENCH_BENCH_H
#define SEALPROV_BENCH_BENCH_H

#include <stdbool.h>
#include <stddef.h>

/* `sealprov bench cpu` (bench_cpu.c): throughput of the CPU curve library
 * (plugin/bls12_381) as one JSON object on stdout. */
int sp_cmd_bench_cpu(int argc, char **argv);
/* `sealprov bench load ...` (bench_load.c), which cmd_bench hands `load ...`. */
int sp_bench_load(int argc, char **argv);

/* ---- the machine and the process (cmd_bench.c, bench_load.c, proc.c) --------------- */
/* The CPU model and the memory in KiB (/proc): the machine a figure was measured on. */
void sp_bench_machine(char *cpu, size_t cpulen, unsigned long long *mem_kib);
/* The 1-minute load average, -1 when unknown. */
double sp_bench_load_average(void);
/* A CUDA build that sees at least one GPU (bench_load.c): where bench load and bench
 * witness --size make their parameters' fixed-base products on GPU 0. */
bool sp_bench_gpu_visible(void);
/* The value of the line "key: N kB" of a /proc file into *kib (0 when absent):
 * SP_PROC_STATUS's VmRSS and VmHWM, SP_PROC_MEMINFO's MemTotal and MemAvailable. False
 * when the file or the line is not there (proc.c, in the bench host library). */
#define SP_PROC_STATUS "/proc/self/status"
#define SP_PROC_MEMINFO "/proc/meminfo"
bool sp_bench_proc_kib(const char *path, const char *key, unsigned long long *kib);
/* Resets VmHWM to the current RSS (Linux >= 4.0); false when not possible (proc.c). */
bool sp_bench_reset_peak_rss(void);

/* ---- options and figures (cmd_bench.c) -------------------------------------------- */
/* --sizes K,K,...: up to BENCH_MAX_SIZES exponents between 6 and max_log into sizes[]
 * (*n of them); false with a message otherwise. */
#define BENCH_MAX_SIZES 16
bool sp_bench_parse_sizes(const char *arg, unsigned max_log, unsigned *sizes, unsigned *n);
/* qsort's order of doubles, ascending. */
int sp_bench_cmp_double(const void *a, const void *b);

#endif
