/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fuzz_snarkjs.c -- libFuzzer harness for the readers of snarkjs's JSON files
 * (kit/cli/snarkjs_json.c, `sealprov verify --vk verification_key.json --proof proof.json
 * --public public.json`).
 *
 * Input: one byte that picks the reader (value % 3: 0 verification_key.json,
 * 1 proof.json, 2 public.json), then the file.
 *
 * Properties beyond "no crash, no sanitizer report, no stack overflow (nesting is
 * bounded), no timeout (a number of thousands of digits is refused, not converted)":
 *  - the message is NUL-terminated valid UTF-8; on failure it is non-empty, names the
 *    file, and nothing is returned (vk->ic, *pub NULL);
 *  - an accepted verifying key: ic_len >= 1, alpha in G1 and beta, gamma, delta in G2
 *    (on the curve, in the subgroup, not infinity), every IC point on the curve and in
 *    the subgroup or infinity, and ic_len == nPublic + 1 when the key has a top-level
 *    "nPublic" (found here by a scanner of its own, below);
 *  - an accepted proof: pi_a, pi_c on G1's curve or infinity, pi_b on G2's;
 *  - accepted public inputs: every value below r. */
#include "fuzz_common.h"

#include "../../kit/cli/snarkjs_json.h"
#include "sealprov.h"

static char msg[2048];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return 0;
}

static bool below(const uint64_t *l, const uint64_t *bound, size_t n) {
  for (size_t i = n; i-- > 0;)
    if (l[i] != bound[i]) return l[i] < bound[i];
  return false;
}

static void check_failure(const char *path) {
  FUZZ_CHECK(msg[0] != '\0', "refused without a message");
  FUZZ_CHECK(strstr(msg, path) != NULL, "message does not name the file: %s", msg);
}

/* The value of the first top-level member "nPublic" of an accepted key (whose text is
 * therefore well-formed for the reader): 1 with *out set, 0 when there is none. The
 * reader has no \u escapes and no other escape yields a letter, so the key is spelled
 * literally. -1: "nPublic" is there but its value is not a run of digits that fits 64 bits
 * (the reader would have refused it). */
static int top_level_npublic(const char *s, size_t len, uint64_t *out) {
  int depth = 0;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (c == '{' || c == '[') {
      depth++;
      continue;
    }
    if (c == '}' || c == ']') {
      depth--;
      continue;
    }
    if (c != '"') continue;
    size_t start = ++i;
    while (i < len && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
    if (i >= len) return 0;
    if (depth != 1 || i - start != 7 || memcmp(s + start, "nPublic", 7) != 0) continue;
    size_t k = i + 1;
    while (k < len && strchr(" \t\r\n", s[k]) && s[k]) k++;
    if (k >= len || s[k] != ':') continue; /* a value, not a key */
    k++;
    while (k < len && strchr(" \t\r\n", s[k]) && s[k]) k++;
    uint64_t v = 0;
    size_t digits = 0;
    for (; k < len && s[k] >= '0' && s[k] <= '9'; k++, digits++) {
      unsigned d = (unsigned)(s[k] - '0');
      if (v > (UINT64_MAX - d) / 10) return -1;
      v = v * 10 + d;
    }
    if (!digits) return -1;
    *out = v;
    return 1;
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int which = data[0] % 3;
  const char *text = (const char *)data + 1;
  size_t len = size - 1;
  const char *path = fuzz_as_file(data + 1, len);
  memset(msg, 0x55, sizeof msg);
  msg[0] = '\0'; /* success leaves msg as it is */
  if (which == 0) {
    sp_vk vk;
    memset(&vk, 0x5a, sizeof vk);
    bool ok = sp_snarkjs_load_vk(path, &vk, msg, sizeof msg);
    fuzz_check_message(msg, sizeof msg);
    if (!ok) {
      check_failure(path);
      FUZZ_CHECK(vk.ic == NULL, "a refused key left IC points");
      return 0;
    }
    FUZZ_CHECK(vk.ic_len >= 1 && vk.ic != NULL, "ic_len %zu", vk.ic_len);
    FUZZ_CHECK(!g1_affine_is_inf(&vk.alpha_g1) && g1_affine_on_curve(&vk.alpha_g1) &&
                   g1_affine_in_subgroup(&vk.alpha_g1),
               "alpha not in G1");
    const g2_affine_t *g2[3] = {&vk.beta_g2, &vk.gamma_g2, &vk.delta_g2};
    for (int i = 0; i < 3; i++)
      FUZZ_CHECK(
          !g2_affine_is_inf(g2[i]) && g2_affine_on_curve(g2[i]) && g2_affine_in_subgroup(g2[i]),
          "G2 point %d of the key not in G2", i);
    for (size_t i = 0; i < vk.ic_len; i++)
      FUZZ_CHECK(g1_affine_is_inf(&vk.ic[i]) ||
                     (g1_affine_on_curve(&vk.ic[i]) && g1_affine_in_subgroup(&vk.ic[i])),
                 "IC[%zu] not in G1", i);
    uint64_t npub = 0;
    int has = top_level_npublic(text, len, &npub);
    FUZZ_CHECK(has >= 0, "accepted a key whose nPublic is not a 64-bit number");
    FUZZ_CHECK(has == 0 || npub + 1 == vk.ic_len, "nPublic %llu but %zu IC points",
               (unsigned long long)npub, vk.ic_len);
    free(vk.ic);
  } else if (which == 1) {
    sp_zkey_proof pr;
    bool ok = sp_snarkjs_load_proof(path, &pr, msg, sizeof msg);
    fuzz_check_message(msg, sizeof msg);
    if (!ok) {
      check_failure(path);
      return 0;
    }
    FUZZ_CHECK(g1_affine_is_inf(&pr.a) || g1_affine_on_curve(&pr.a), "pi_a off the curve");
    FUZZ_CHECK(g2_affine_is_inf(&pr.b) || g2_affine_on_curve(&pr.b), "pi_b off the curve");
    FUZZ_CHECK(g1_affine_is_inf(&pr.c) || g1_affine_on_curve(&pr.c), "pi_c off the curve");
  } else {
    scalar_t *pub = (scalar_t *)&msg; /* anything but NULL */
    size_t n = 0;
    bool ok = sp_snarkjs_load_public(path, &pub, &n, msg, sizeof msg);
    fuzz_check_message(msg, sizeof msg);
    if (!ok) {
      check_failure(path);
      FUZZ_CHECK(pub == NULL, "refused public inputs left an array");
      return 0;
    }
    FUZZ_CHECK(pub != NULL, "accepted public inputs without an array");
    for (size_t i = 0; i < n; i++)
      FUZZ_CHECK(below(pub[i].l, BLS_R, 4), "public input %zu not below r", i);
    free(pub);
  }
  return 0;
}
