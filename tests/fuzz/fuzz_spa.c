/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fuzz_spa.c -- libFuzzer harness for the partition assignment reader (sp_spa_read,
 * kit/spa.c).
 *
 * The file ends with an XXH64 of everything before it, so a mutated input almost never
 * gets past the checksum. Each input is therefore read twice: as it is, and (when it is
 * long enough) with the last 8 bytes replaced by the right checksum, which lets the
 * fuzzer reach the checks behind it (density lengths, popcounts, stray bits, scalars).
 *
 * Properties beyond "no crash, no sanitizer report":
 *  - the status is OK or ASSIGNMENT (NO_MEMORY allowed, see fuzz_params.c);
 *  - a message is NUL-terminated valid UTF-8, non-empty and naming the file on failure;
 *  - OK gives an assignment whose every vector lies inside the file and whose density
 *    lengths match the sizes. */
#include "fuzz_common.h"

#include "spa.h"
#include "sealprov.h"

static char err[2048];
static uint8_t *fixed;
static size_t fixed_cap;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return 0;
}

static int inside(const sp_spa *s, const void *p, uint64_t n, uint64_t each) {
  if (n == 0) return 1;
  const uint8_t *b = s->map, *q = p;
  if (!q || q < b) return 0;
  uint64_t off = (uint64_t)(q - b);
  return n <= (s->map_len - off) / each && off <= s->map_len;
}

static void read_one(const uint8_t *data, size_t size) {
  const char *path = fuzz_as_file(data, size);
  sp_spa *spa = NULL;
  memset(err, 0x55, sizeof err);
  err[0] = '\0'; /* success leaves err as it is */
  int st = sp_spa_read(path, &spa, err, sizeof err);
  fuzz_check_message(err, sizeof err);
  FUZZ_CHECK(st == SEALPROV_OK || st == SEALPROV_ERR_ASSIGNMENT || st == SEALPROV_ERR_NO_MEMORY,
             "status %d: %s", st, err);
  if (st != SEALPROV_OK) {
    FUZZ_CHECK(spa == NULL, "status %d with an assignment", st);
    FUZZ_CHECK(strstr(err, path) != NULL, "message does not name the file: %s", err);
    return;
  }
  FUZZ_CHECK(spa != NULL, "OK without an assignment");
  const sealprov_assignment *a = &spa->asg;
  FUZZ_CHECK(spa->map_len == size, "map_len %zu for a file of %zu bytes", spa->map_len, size);
  FUZZ_CHECK(inside(spa, a->a, a->abc_size, 32) && inside(spa, a->b, a->abc_size, 32) &&
                 inside(spa, a->c, a->abc_size, 32) &&
                 inside(spa, a->inp_assignment, a->inp_size, 32) &&
                 inside(spa, a->aux_assignment, a->aux_size, 32),
             "a vector lies outside the file (abc %llu, inp %llu, aux %llu, %zu bytes)",
             (unsigned long long)a->abc_size, (unsigned long long)a->inp_size,
             (unsigned long long)a->aux_size, size);
  FUZZ_CHECK(inside(spa, a->a_aux_density, (a->a_aux_bit_len + 63) / 64, 8) &&
                 inside(spa, a->b_inp_density, (a->b_inp_bit_len + 63) / 64, 8) &&
                 inside(spa, a->b_aux_density, (a->b_aux_bit_len + 63) / 64, 8),
             "a density bitmap lies outside the file (bits %llu/%llu/%llu, %zu bytes)",
             (unsigned long long)a->a_aux_bit_len, (unsigned long long)a->b_inp_bit_len,
             (unsigned long long)a->b_aux_bit_len, size);
  FUZZ_CHECK(a->a_aux_bit_len == a->aux_size && a->b_aux_bit_len == a->aux_size &&
                 a->b_inp_bit_len == a->inp_size,
             "density lengths do not match the sizes");
  sp_spa_free(spa);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  read_one(data, size);
  if (size < SP_SPA_HEADER_BYTES + 8) return 0;
  if (fixed_cap < size) {
    uint8_t *n = realloc(fixed, size);
    FUZZ_CHECK(n != NULL, "out of memory for %zu bytes", size);
    fixed = n;
    fixed_cap = size;
  }
  memcpy(fixed, data, size);
  uint64_t sum = sp_xxh64(fixed, size - 8);
  for (int i = 0; i < 8; i++) fixed[size - 8 + i] = (uint8_t)(sum >> (8 * i));
  if (memcmp(fixed, data, size) != 0) read_one(fixed, size);
  return 0;
}
