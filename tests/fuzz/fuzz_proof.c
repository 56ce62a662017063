/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fuzz_proof.c -- libFuzzer harness for the verifier's proof decoding and check
 * (sp_groth16_verify_inputs, plugin/groth16/verify.c): 192 bytes of compressed A || B || C.
 *
 * The verifying key is loaded once, from $SEALPROV_FUZZ_VK or else the .vk seed
 * checked in next to this file (FUZZ_VK_PATH, set by tests/fuzz/local.mk).
 * Input: the 192 proof bytes (zero-padded when shorter), then the public inputs, 32
 * bytes little-endian each, as many as the key takes (zero-padded; a value >= r is
 * replaced by 0: scalar decoding is not what this harness is about).
 *
 * Properties beyond "no crash, no sanitizer report":
 *  - the status is OK or INVALID_ARGUMENT; the message is valid UTF-8 and non-empty on
 *    INVALID_ARGUMENT;
 *  - INVALID_ARGUMENT exactly when a point does not decode (with the subgroup check) or
 *    is the point at infinity, checked against g1_deserialize / g2_deserialize. */
#include "fuzz_common.h"

#include "groth16/groth16.h"
#include "formats/srs.h"
#include "sealprov.h"

#ifndef FUZZ_VK_PATH
#define FUZZ_VK_PATH "tests/fuzz/corpus/vk/setup64.vk"
#endif

static sp_srs *vk;
static fr_t *inputs;
static char err[2048];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *path = getenv("SEALPROV_FUZZ_VK");
  if (!path || !*path) path = FUZZ_VK_PATH;
  int st = sp_srs_load(path, true, true, 1, &vk, err, sizeof err);
  if (st != SEALPROV_OK) {
    fprintf(stderr, "fuzz_proof: cannot load the verifying key (set SEALPROV_FUZZ_VK): %s\n", err);
    exit(2);
  }
  inputs = calloc(vk->vk.ic_len, sizeof *inputs);
  FUZZ_CHECK(inputs != NULL, "out of memory");
  return 0;
}

static bool point_ok(const uint8_t *p, bool g2) {
  if (g2) {
    g2_affine_t q;
    return g2_deserialize(&q, p, 96, BLS_DECODE_SUBGROUP_CHECK) == BLS_OK && !g2_affine_is_inf(&q);
  }
  g1_affine_t q;
  return g1_deserialize(&q, p, 48, BLS_DECODE_SUBGROUP_CHECK) == BLS_OK && !g1_affine_is_inf(&q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!vk) LLVMFuzzerInitialize(NULL, NULL);
  uint8_t proof[192] = {0};
  memcpy(proof, data, size < 192 ? size : 192);
  size_t n = vk->vk.ic_len - 1;
  for (size_t i = 0; i < n; i++) {
    uint8_t s[32] = {0};
    size_t at = 192 + 32 * i;
    if (size > at) memcpy(s, data + at, size - at < 32 ? size - at : 32);
    if (!sp_scalar_decode(&inputs[i], s, SEALPROV_SCALAR_CANONICAL_LE))
      memset(&inputs[i], 0, sizeof inputs[i]);
  }
  bool valid = true;
  memset(err, 0x55, sizeof err);
  err[0] = '\0'; /* a successful check leaves err as it is */
  int st = sp_groth16_verify_inputs(&vk->vk, inputs, n, proof, &valid, err, sizeof err);
  fuzz_check_message(err, sizeof err);
  FUZZ_CHECK(st == SEALPROV_OK || st == SEALPROV_ERR_INVALID_ARGUMENT, "status %d: %s", st, err);
  bool decodes =
      point_ok(proof, false) && point_ok(proof + 48, true) && point_ok(proof + 144, false);
  FUZZ_CHECK(decodes == (st == SEALPROV_OK), "status %d but the points %s: %s", st,
             decodes ? "decode" : "do not decode", err);
  if (st != SEALPROV_OK) {
    FUZZ_CHECK(!valid, "invalid proof bytes reported valid");
    FUZZ_CHECK(err[0] != '\0', "INVALID_ARGUMENT without a message");
  }
  return 0;
}
