/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fuzz_vk.c -- libFuzzer harness for the .vk reader (sp_srs_load with vk_only = true,
 * subgroup checks on): fuzz_params.c with FUZZ_VK_ONLY = 1. */
#define FUZZ_VK_ONLY 1
#include "fuzz_params.c"
