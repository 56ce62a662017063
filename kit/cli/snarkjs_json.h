/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* snarkjs_json.h -- readers of snarkjs's Groth16 JSON files (BLS12-381):
 * verification_key.json, proof.json and public.json, for `sealprov verify` and
 * tests/fuzz/fuzz_snarkjs.c.
 *
 * Each reader parses the whole file with a small JSON parser (objects, arrays,
 * strings without \u escapes, numbers, literals; at most 64 MiB, 2,097,152 values and
 * 33 levels of nesting) and returns false with a message in msg when the file cannot
 * be read, is not JSON or is not the snarkjs file expected. Every message names the
 * file (escaped as valid UTF-8) and is valid UTF-8 when msglen leaves room for the
 * whole message (2048 bytes always do); text taken from the file is escaped the same
 * way, and cut to at most 255 bytes. */
#ifndef SEALPROV_TOOLS_SNARKJS_JSON_H
#define SEALPROV_TOOLS_SNARKJS_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "formats/srs.h" /* sp_vk */
#include "zkey.h"        /* sp_zkey_proof */

/* verification_key.json into vk (vk->ic malloc'd: free it; nothing to free on false).
 * Promises on true: "protocol" is "groth16", "curve" (when present) "bls12381";
 * vk_alpha_1, vk_beta_2, vk_gamma_2, vk_delta_2 are on their curves, in their subgroups
 * and not infinity; vk->ic_len >= 1 and every IC point is on the curve and in the
 * subgroup or infinity; when "nPublic" is present, nPublic + 1 == ic_len; vk->pvk is
 * prepared. beta_g1 and delta_g1 (not in snarkjs's file) are zero. */
bool sp_snarkjs_load_vk(const char *path, sp_vk *vk, char *msg, size_t msglen);

/* proof.json into pr. Promises on true: "protocol" is "groth16", "curve" (when
 * present) "bls12381"; pi_a, pi_b, pi_c are on their curves or infinity (subgroup
 * membership is left to sp_zkey_verify). A message for a point that is off the curve
 * contains "not on the curve", one for a coordinate >= p "below p" (the CLI calls
 * such a proof invalid rather than unreadable). */
bool sp_snarkjs_load_proof(const char *path, sp_zkey_proof *pr, char *msg, size_t msglen);

/* public.json (an array of decimal strings or integers) into *pub (malloc'd, *n
 * values; free it). Promises on true: every value is below r. On false *pub is NULL. */
bool sp_snarkjs_load_public(const char *path, scalar_t **pub, size_t *n, char *msg, size_t msglen);

#endif
