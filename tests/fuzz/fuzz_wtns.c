/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fuzz_wtns.c -- libFuzzer harness for the circom .wtns reader (sp_wtns_load,
 * kit/wtns.c, through the iden3 container reader sp_iden3_read).
 *
 * Properties beyond "no crash, no sanitizer report, no allocation the file cannot back":
 *  - the status is one cs.h documents for a readable file: OK, UNSUPPORTED, ASSIGNMENT
 *    (NO_MEMORY allowed, see fuzz_params.c; IO cannot happen on a memfd nobody changes);
 *  - a message is NUL-terminated valid UTF-8, non-empty and naming the file on failure,
 *    and a failure returns no witness;
 *  - an accepted witness is what the file says, checked against a second walk of the
 *    input here: n is the header's nWitness, the values are the bytes of the values
 *    section, and every value is below BLS12-381's r (cs.h promises canonical scalars). */
#include "fuzz_common.h"
#include "iden3_walk.h"

#include "formats/cs.h"
#include "formats/iden3.h"
#include "wtns.h"
#include "sealprov.h"

static char err[2048];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return 0;
}

/* v (32 bytes, little-endian) < r, compared from the top byte: independent of the
 * loader's below_r. */
static int below_r(const uint8_t *v) {
  for (int i = 31; i >= 0; i--)
    if (v[i] != sp_cs_bls12_381_r_le[i]) return v[i] < sp_cs_bls12_381_r_le[i];
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_as_file(data, size);
  sp_wtns *w = NULL;
  memset(err, 0x55, sizeof err);
  err[0] = '\0'; /* success leaves err as it is */
  int st = sp_wtns_load(path, &w, err, sizeof err);
  fuzz_check_message(err, sizeof err);
  FUZZ_CHECK(st == SEALPROV_OK || st == SEALPROV_ERR_ASSIGNMENT || st == SEALPROV_ERR_UNSUPPORTED ||
                 st == SEALPROV_ERR_NO_MEMORY,
             "status %d: %s", st, err);
  if (st != SEALPROV_OK) {
    FUZZ_CHECK(w == NULL, "status %d with a witness", st);
    FUZZ_CHECK(strstr(err, path) != NULL, "message does not name the file: %s", err);
    return 0;
  }
  FUZZ_CHECK(w != NULL && w->values != NULL, "OK without a witness");
  FUZZ_CHECK(size >= 12 && memcmp(data, "wtns", 4) == 0, "accepted without the magic");
  uint32_t version = rd32(data + 4);
  FUZZ_CHECK(version == 1 || version == 2, "accepted version %u", version);
  uint64_t hl = 0, vl = 0;
  const uint8_t *h = find_section(data, size, 1, &hl);
  const uint8_t *v = find_section(data, size, 2, &vl);
  FUZZ_CHECK(h && hl == 40 && v, "accepted without a 40-byte header and a values section");
  FUZZ_CHECK(rd32(h) == 32 && memcmp(h + 4, sp_cs_bls12_381_r_le, 32) == 0,
             "accepted another field");
  FUZZ_CHECK(w->n == rd32(h + 36) && vl == 32 * w->n, "n %llu, nWitness %u, section of %llu bytes",
             (unsigned long long)w->n, rd32(h + 36), (unsigned long long)vl);
  FUZZ_CHECK(w->n == 0 || memcmp(w->values, v, (size_t)vl) == 0, "values differ from the file's");
  for (uint64_t i = 0; i < w->n; i++)
    FUZZ_CHECK(below_r(w->values + 32 * i), "value %llu is not below r", (unsigned long long)i);
  sp_wtns_free(w);
  return 0;
}
