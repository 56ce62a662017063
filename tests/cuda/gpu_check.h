/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* gpu_check.h -- the check counter of the GPU test programs (plain programs: the GPU
 * machine has no libcheck). Include once per program. */
#ifndef SEALPROV_TESTS_GPU_CHECK_H
#define SEALPROV_TESTS_GPU_CHECK_H

#include <stdio.h>

static int failures, checks;

#define CHECK(cond, ...)                          \
  do {                                            \
    checks++;                                     \
    if (!(cond)) {                                \
      failures++;                                 \
      printf("FAIL %s:%d: ", __FILE__, __LINE__); \
      printf(__VA_ARGS__);                        \
      printf("\n");                               \
    }                                             \
  } while (0)

#endif
