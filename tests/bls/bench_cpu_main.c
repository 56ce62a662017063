/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* tools/sealprov-bench-cpu: `sealprov bench cpu` as a program of its own, so the
 * benchmark runs before (and independently of) the CLI that hosts it. */
#include "bench_cpu.h"

int main(int argc, char **argv) { return sp_cmd_bench_cpu(argc, argv); }
