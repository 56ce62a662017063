/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fuzz_params.c -- libFuzzer harness for the bellperson .params reader (sp_srs_load,
 * plugin/formats/srs.c, vk_only = false). fuzz_vk.c includes this file with FUZZ_VK_ONLY = 1
 * for the .vk reader (vk_only = true).
 *
 * Properties beyond "no crash, no sanitizer report, no allocation the file cannot back":
 *  - the status is OK or PARAMS (a memfd is always readable; NO_MEMORY is allowed only
 *    because the allocator may refuse, and libFuzzer's -malloc_limit_mb catches an
 *    allocation sized by an unchecked length first);
 *  - a message is NUL-terminated valid UTF-8, non-empty and naming the file on failure;
 *  - OK gives a consistent set: ic_len >= 1, and for .params h_len + 1 == 2^log_domain.
 * The .params harness decodes without the subgroup check (fuzz_point covers it; with it
 * every valid seed costs milliseconds); the .vk harness decodes with it. */
#include "fuzz_common.h"

#include "formats/srs.h"
#include "sealprov.h"

#ifndef FUZZ_VK_ONLY
#define FUZZ_VK_ONLY 0
#endif

static char err[2048];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_as_file(data, size);
  sp_srs *srs = NULL;
  memset(err, 0x55, sizeof err);
  err[0] = '\0'; /* success leaves err as it is */
  int st = sp_srs_load(path, FUZZ_VK_ONLY, FUZZ_VK_ONLY, 1, &srs, err, sizeof err);
  fuzz_check_message(err, sizeof err);
  FUZZ_CHECK(st == SEALPROV_OK || st == SEALPROV_ERR_PARAMS || st == SEALPROV_ERR_NO_MEMORY,
             "status %d: %s", st, err);
  if (st != SEALPROV_OK) {
    FUZZ_CHECK(srs == NULL, "status %d with a parameter set", st);
    FUZZ_CHECK(strstr(err, path) != NULL, "message does not name the file: %s", err);
    return 0;
  }
  FUZZ_CHECK(srs != NULL, "OK without a parameter set");
  FUZZ_CHECK(srs->vk.ic_len >= 1 && srs->vk.ic != NULL, "ic_len %zu", srs->vk.ic_len);
  FUZZ_CHECK(srs->vk_only == FUZZ_VK_ONLY, "vk_only %d", (int)srs->vk_only);
  if (!FUZZ_VK_ONLY) {
    FUZZ_CHECK(srs->log_domain < 64 && srs->h_len + 1 == (size_t)1 << srs->log_domain,
               "h_len %zu, log_domain %u", srs->h_len, srs->log_domain);
    /* Touch the first and last point of every vector: ASan sees a short allocation. */
    volatile uint8_t sink = 0;
#define TOUCH(v, n)                                                      \
  if ((n) > 0) {                                                         \
    sink ^= ((const volatile uint8_t *)&(v)[0])[0];                      \
    sink ^= ((const volatile uint8_t *)&(v)[(n)-1])[sizeof((v)[0]) - 1]; \
  }
    TOUCH(srs->h, srs->h_len);
    TOUCH(srs->l, srs->l_len);
    TOUCH(srs->a, srs->a_len);
    TOUCH(srs->b_g1, srs->b_g1_len);
    TOUCH(srs->b_g2, srs->b_g2_len);
#undef TOUCH
    (void)sink;
  }
  sp_srs_release(srs);
  return 0;
}
