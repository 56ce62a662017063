/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_c2_convert.c -- libsealprov_c2's conversions for C hosts (compat/c2_convert.c),
 * called through the library as a host calls them:
 *   sealprov_c2_fr_from_canonical: 0, 1, r - 1 and 2^64 against their Montgomery forms
 *   (FR_ONE, -FR_ONE, fr_from_u64 and blst's R mod r written out), in place equal to
 *   out of place, r and 2^256 - 1 refused with the index and the value, the slots
 *   after a refused value untouched, NULL and n = 0;
 *   sealprov_c2_proof_compress: a "proof" of the generators against the generators'
 *   published compressed encodings (the zcash serialization of BLS12-381), a
 *   coordinate >= p and a point off the curve refused with nothing written.
 * The end-to-end use is docs/examples/c2_prove.c (tests/compat/c2_example.sh). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bls12_381/bls12_381.h"
#include "sealprov.h"
#include "sealprov_c2.h"

static int failures;
#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fputc('\n', stderr);                                 \
      failures++;                                          \
    }                                                      \
  } while (0)

/* e is OK (and has no message). */
static void ok(c2_error e, const char *what) {
  CHECK(e.code == 0 && e.message == NULL, "%s: code %d: %s", what, e.code,
        e.message ? e.message : "(no message)");
  free(e.message);
}

/* e is INVALID_ARGUMENT with a message holding every string of want (NULL-ended). */
static void refused(c2_error e, const char *what, const char *const *want) {
  CHECK(e.code == SEALPROV_ERR_INVALID_ARGUMENT, "%s: code %d, expected 1", what, e.code);
  CHECK(e.message != NULL, "%s: no message", what);
  if (e.message == NULL) return;
  printf("  %s -> %s\n", what, e.message);
  for (; *want != NULL; want++)
    CHECK(strstr(e.message, *want) != NULL, "%s: message lacks '%s'", what, *want);
  free(e.message);
}

static void le32_of_limbs(uint8_t out[32], const uint64_t l[4]) {
  for (int i = 0; i < 32; i++) out[i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
}

static void test_fr(void) {
  /* canonical inputs: 0, 1, r - 1, 2^64 */
  uint8_t in[4][32];
  memset(in, 0, sizeof in);
  in[1][0] = 1;
  uint64_t rm1[4] = {BLS_R[0] - 1, BLS_R[1], BLS_R[2], BLS_R[3]};
  le32_of_limbs(in[2], rm1);
  in[3][8] = 1;
  c2_fr out[4];
  ok(sealprov_c2_fr_from_canonical(out, in, 4), "0, 1, r - 1, 2^64");
  fr_t want[4] = {FR_ZERO, FR_ONE, FR_ONE, FR_ZERO};
  fr_neg(&want[2], &FR_ONE);
  fr_from_u64(&want[3], 1);
  for (int i = 0; i < 64; i++) fr_dbl(&want[3], &want[3]);
  for (int i = 0; i < 4; i++)
    CHECK(memcmp(out[i].l, want[i].l, 32) == 0, "value %d: wrong Montgomery limbs", i);
  /* 1 in blst's Montgomery form: R mod r = 2^256 mod r, written out */
  static const uint64_t blst_one[4] = {0x00000001fffffffeULL, 0x5884b7fa00034802ULL,
                                       0x998c4fefecbc4ff5ULL, 0x1824b159acc5056fULL};
  CHECK(memcmp(out[1].l, blst_one, 32) == 0, "1 is not blst's ONE");

  /* in place: the same memory, the same result */
  c2_fr inplace[4];
  memcpy(inplace, in, sizeof inplace);
  ok(sealprov_c2_fr_from_canonical(inplace, inplace, 4), "in place");
  CHECK(memcmp(inplace, out, sizeof out) == 0, "in place differs from out of place");

  /* r itself at index 2: refused with its index and value; 0 and 1 converted, the slots
   * from index 2 on untouched */
  uint8_t bad[4][32];
  memcpy(bad, in, sizeof bad);
  le32_of_limbs(bad[2], BLS_R);
  c2_fr got[4];
  memset(got, 0xA5, sizeof got);
  refused(sealprov_c2_fr_from_canonical(got, bad, 4), "r at index 2",
          (const char *const[]){
              "sealprov_c2_fr_from_canonical", "scalar 2 of 4", "not below the group order r",
              "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", NULL});
  CHECK(memcmp(got, out, 2 * sizeof got[0]) == 0, "values before the refused one not converted");
  for (int i = 2; i < 4; i++) {
    uint8_t pattern[32];
    memset(pattern, 0xA5, sizeof pattern);
    CHECK(memcmp(got[i].l, pattern, 32) == 0, "slot %d written after the refused value", i);
  }
  /* in place, 2^256 - 1 at index 0: refused, and the canonical bytes stay as they were */
  c2_fr ones[1];
  memset(ones, 0xFF, sizeof ones);
  refused(sealprov_c2_fr_from_canonical(ones, ones, 1), "2^256 - 1 in place",
          (const char *const[]){"scalar 0 of 1", "0xffffffff", NULL});
  uint8_t ff[32];
  memset(ff, 0xFF, sizeof ff);
  CHECK(memcmp(ones, ff, 32) == 0, "a refused value was overwritten in place");

  refused(sealprov_c2_fr_from_canonical(NULL, in, 1), "NULL out",
          (const char *const[]){"out is NULL", NULL});
  refused(sealprov_c2_fr_from_canonical(out, NULL, 1), "NULL in",
          (const char *const[]){"in is NULL", NULL});
  ok(sealprov_c2_fr_from_canonical(NULL, NULL, 0), "n = 0");
}

static void hex_to_bytes(uint8_t *out, const char *hex) {
  for (size_t i = 0; hex[2 * i] != '\0'; i++) {
    unsigned v;
    sscanf(hex + 2 * i, "%2x", &v);
    out[i] = (uint8_t)v;
  }
}

static void test_proof(void) {
  /* The generators' compressed encodings, as published with the curve (zcash's
   * serialization; the first byte carries the compression flag 0x80). */
  static const char g1_hex[] =
      "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00"
      "adb22c6bb";
  static const char g2_hex[] =
      "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d0"
      "55d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bb"
      "efd48056c8c121bdb8";
  uint8_t want[192];
  hex_to_bytes(want, g1_hex);
  hex_to_bytes(want + 48, g2_hex);
  hex_to_bytes(want + 144, g1_hex);

  g1_affine_t g1;
  g2_affine_t g2;
  g1_generator(&g1);
  g2_generator(&g2);
  c2_groth16_proof p[2];
  memcpy(&p[0].a, &g1, sizeof p[0].a);
  memcpy(&p[0].b, &g2, sizeof p[0].b);
  memcpy(&p[0].c, &g1, sizeof p[0].c);
  p[1] = p[0];
  uint8_t out[2 * 192];
  ok(sealprov_c2_proof_compress(out, p, 2), "the generators");
  CHECK(memcmp(out, want, 192) == 0 && memcmp(out + 192, want, 192) == 0,
        "the generators do not compress to their published encodings");

  /* proof 1's C with x = p (not a Montgomery value below p): nothing written */
  c2_groth16_proof bad[2] = {p[0], p[0]};
  memcpy(bad[1].c.x.l, BLS_P, sizeof bad[1].c.x.l);
  uint8_t untouched[2 * 192];
  memset(untouched, 0x5A, sizeof untouched);
  memcpy(out, untouched, sizeof out);
  refused(sealprov_c2_proof_compress(out, bad, 2), "x = p",
          (const char *const[]){"sealprov_c2_proof_compress", "proof 1 of 2",
                                "C has a coordinate >= p", NULL});
  CHECK(memcmp(out, untouched, sizeof out) == 0, "bytes written for a refused proof");
  /* proof 0's B with y = x: off the curve */
  bad[1] = p[0];
  memcpy(&bad[0].b.y, &bad[0].b.x, sizeof bad[0].b.y);
  refused(sealprov_c2_proof_compress(out, bad, 2), "B off the curve",
          (const char *const[]){"proof 0 of 2", "B is not on the curve", NULL});
  CHECK(memcmp(out, untouched, sizeof out) == 0, "bytes written for a refused proof");
  refused(sealprov_c2_proof_compress(NULL, p, 1), "NULL out",
          (const char *const[]){"out is NULL", NULL});
  refused(sealprov_c2_proof_compress(out, NULL, 1), "NULL proofs",
          (const char *const[]){"proofs is NULL", NULL});
  ok(sealprov_c2_proof_compress(NULL, NULL, 0), "n = 0");
}

int main(void) {
  test_fr();
  test_proof();
  if (failures != 0) {
    fprintf(stderr, "test_c2_convert: %d failure(s)\n", failures);
    return 1;
  }
  printf("test_c2_convert: all checks passed\n");
  return 0;
}
