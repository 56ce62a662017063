/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fuzz_zkey.c -- libFuzzer harness for the snarkjs Groth16 .zkey reader (sp_zkey_load,
 * kit/zkey.c, through the iden3 container reader sp_iden3_read), with the subgroup
 * check on and one thread.
 *
 * Properties beyond "no crash, no sanitizer report, no allocation the file cannot back":
 *  - the status is one zkey.h documents for a readable file: OK, UNSUPPORTED, PARAMS
 *    (NO_MEMORY allowed, see fuzz_params.c; IO cannot happen on a memfd nobody changes);
 *  - a message is NUL-terminated valid UTF-8, non-empty and naming the file on failure,
 *    and a failure returns no key;
 *  - an accepted key agrees with its header, read here a second time from the input:
 *    nVars, nPublic (nPublic + 1 <= nVars), domainSize (a power of two from 2 to 2^28,
 *    2^log_n), ic_len = nPublic + 1, the coefficient count and every entry's matrix
 *    (0 or 1), constraint (< domainSize) and signal (< nVars) as in the file;
 *  - the six verifying-key points are not infinity; the first and last point of every
 *    vector (IC, A, B1, B2, C, H) hold the file's coordinates and are on their curve and
 *    in their subgroup (ASan also sees a short allocation there). */
#include "fuzz_common.h"
#include "iden3_walk.h"

#include "zkey.h"
#include "sealprov.h"

static char err[2048];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return 0;
}

/* The file stores coordinates as Montgomery little-endian limbs, as fp_t holds them. */
static int fp_is(const fp_t *x, const uint8_t *p) {
  for (int i = 0; i < 6; i++)
    if (x->l[i] != rd64(p + 8 * i)) return 0;
  return 1;
}

static void check_g1(const char *what, uint64_t i, const g1_affine_t *pt, const uint8_t *file) {
  FUZZ_CHECK(fp_is(&pt->x, file) && fp_is(&pt->y, file + 48), "%s[%llu] differs from the file's",
             what, (unsigned long long)i);
  FUZZ_CHECK(g1_affine_on_curve(pt) && (g1_affine_is_inf(pt) || g1_affine_in_subgroup(pt)),
             "%s[%llu] accepted off the curve or the subgroup", what, (unsigned long long)i);
}

static void check_g2(const char *what, uint64_t i, const g2_affine_t *pt, const uint8_t *file) {
  FUZZ_CHECK(fp_is(&pt->x.c0, file) && fp_is(&pt->x.c1, file + 48) && fp_is(&pt->y.c0, file + 96) &&
                 fp_is(&pt->y.c1, file + 144),
             "%s[%llu] differs from the file's", what, (unsigned long long)i);
  FUZZ_CHECK(g2_affine_on_curve(pt) && (g2_affine_is_inf(pt) || g2_affine_in_subgroup(pt)),
             "%s[%llu] accepted off the curve or the subgroup", what, (unsigned long long)i);
}

/* First and last point of a G1 vector of n points against section t of the input. */
static void check_g1_vec(const char *what, const g1_affine_t *v, uint64_t n, const uint8_t *data,
                         size_t size, uint32_t t) {
  uint64_t len = 0;
  const uint8_t *s = find_section(data, size, t, &len);
  FUZZ_CHECK(s && len == 96 * n, "%s: section %u of %llu bytes for %llu points", what, t,
             (unsigned long long)len, (unsigned long long)n);
  if (n == 0) return;
  FUZZ_CHECK(v != NULL, "%s: %llu points, no vector", what, (unsigned long long)n);
  check_g1(what, 0, &v[0], s);
  check_g1(what, n - 1, &v[n - 1], s + 96 * (n - 1));
}

static void check_key(const sp_zkey *zk, const uint8_t *data, size_t size) {
  uint64_t hl = 0;
  const uint8_t *h = find_section(data, size, 2, &hl);
  FUZZ_CHECK(h && hl == 4 + 48 + 4 + 32 + 12 + 3 * 96 + 3 * 192, "Groth16 header of %llu bytes",
             (unsigned long long)hl);
  const uint8_t *c = h + 4 + 48 + 4 + 32;
  FUZZ_CHECK(zk->n_vars == rd32(c) && zk->n_public == rd32(c + 4) && zk->domain_size == rd32(c + 8),
             "nVars %u nPublic %u domainSize %u, the file says %u %u %u", zk->n_vars, zk->n_public,
             zk->domain_size, rd32(c), rd32(c + 4), rd32(c + 8));
  uint64_t nv = zk->n_vars, np = zk->n_public, d = zk->domain_size;
  FUZZ_CHECK(np + 1 <= nv, "nPublic %llu, nVars %llu", (unsigned long long)np,
             (unsigned long long)nv);
  FUZZ_CHECK(d >= 2 && d <= (UINT64_C(1) << 28) && (d & (d - 1)) == 0 && zk->log_n < 32 &&
                 (UINT64_C(1) << zk->log_n) == d,
             "domainSize %llu, log_n %u", (unsigned long long)d, zk->log_n);
  FUZZ_CHECK(zk->vk.ic_len == np + 1, "ic_len %zu for nPublic %llu", zk->vk.ic_len,
             (unsigned long long)np);
  FUZZ_CHECK(!g1_affine_is_inf(&zk->vk.alpha_g1) && !g1_affine_is_inf(&zk->vk.beta_g1) &&
                 !g1_affine_is_inf(&zk->vk.delta_g1) && !g2_affine_is_inf(&zk->vk.beta_g2) &&
                 !g2_affine_is_inf(&zk->vk.gamma_g2) && !g2_affine_is_inf(&zk->vk.delta_g2),
             "a verifying-key point is infinity");
  const uint8_t *vkp = c + 12;
  check_g1("alpha1", 0, &zk->vk.alpha_g1, vkp);
  check_g1("beta1", 0, &zk->vk.beta_g1, vkp + 96);
  check_g2("beta2", 0, &zk->vk.beta_g2, vkp + 192);
  check_g2("gamma2", 0, &zk->vk.gamma_g2, vkp + 384);
  check_g1("delta1", 0, &zk->vk.delta_g1, vkp + 576);
  check_g2("delta2", 0, &zk->vk.delta_g2, vkp + 672);

  uint64_t cl = 0;
  const uint8_t *cs = find_section(data, size, 4, &cl);
  FUZZ_CHECK(cs && cl >= 4 && zk->n_coefs == rd32(cs) && cl == 4 + 44 * zk->n_coefs,
             "%llu coefficients, section of %llu bytes", (unsigned long long)zk->n_coefs,
             (unsigned long long)cl);
  FUZZ_CHECK(zk->coefs != NULL, "no coefficient array");
  for (uint64_t i = 0; i < zk->n_coefs; i++) {
    const sp_zkey_coef *e = &zk->coefs[i];
    const uint8_t *f = cs + 4 + 44 * i;
    FUZZ_CHECK(e->matrix == rd32(f) && e->constraint == rd32(f + 4) && e->signal == rd32(f + 8),
               "coefficient %llu differs from the file's", (unsigned long long)i);
    FUZZ_CHECK(e->matrix <= 1 && e->constraint < d && e->signal < nv,
               "coefficient %llu: matrix %u constraint %u signal %u accepted",
               (unsigned long long)i, e->matrix, e->constraint, e->signal);
  }

  check_g1_vec("IC", zk->vk.ic, np + 1, data, size, 3);
  check_g1_vec("A", zk->a, nv, data, size, 5);
  check_g1_vec("B1", zk->b1, nv, data, size, 6);
  uint64_t bl = 0;
  const uint8_t *b2 = find_section(data, size, 7, &bl);
  FUZZ_CHECK(b2 && bl == 192 * nv && zk->b2, "B2: section of %llu bytes for %llu points",
             (unsigned long long)bl, (unsigned long long)nv);
  check_g2("B2", 0, &zk->b2[0], b2);
  check_g2("B2", nv - 1, &zk->b2[nv - 1], b2 + 192 * (nv - 1));
  check_g1_vec("C", zk->c, nv - np - 1, data, size, 8);
  check_g1_vec("H", zk->h, d, data, size, 9);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_as_file(data, size);
  sp_zkey *zk = NULL;
  memset(err, 0x55, sizeof err);
  err[0] = '\0'; /* success leaves err as it is */
  int st = sp_zkey_load(path, true, 1, &zk, err, sizeof err);
  fuzz_check_message(err, sizeof err);
  FUZZ_CHECK(st == SEALPROV_OK || st == SEALPROV_ERR_PARAMS || st == SEALPROV_ERR_UNSUPPORTED ||
                 st == SEALPROV_ERR_NO_MEMORY,
             "status %d: %s", st, err);
  if (st != SEALPROV_OK) {
    FUZZ_CHECK(zk == NULL, "status %d with a key", st);
    FUZZ_CHECK(strstr(err, path) != NULL, "message does not name the file: %s", err);
    return 0;
  }
  FUZZ_CHECK(zk != NULL, "OK without a key");
  FUZZ_CHECK(zk->path && strcmp(zk->path, path) == 0, "path %s", zk->path ? zk->path : "(null)");
  check_key(zk, data, size);
  sp_zkey_free(zk);
  return 0;
}
