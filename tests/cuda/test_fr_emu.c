/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* test_fr_emu.c -- the GPU's Fr product (cuda/ff/fr_mul.cuh) run on the host, the very
 * code the kernels compile, with each PTX carry instruction emulated (SPC_HOST_EMU),
 * against the CPU library's fr_mul. Every carry that the device code drops is checked
 * to be zero by the emulation (spc_emu_fail below), so a chain whose bounds argument is
 * wrong fails here even where its result happens to be right. Needs no GPU; runs in
 * every build. Operands: edge values (0, 1, 2, r - 1, r - 2, R mod r, values around
 * (r +- 1) / 2, single bits, all-ones limb patterns, values in [r, 2^255), which the
 * product also takes) and random ones, fresh each run unless SP_TEST_SEED is set.
 * Also: the reduction alone over its whole input range (t < r 2^256), and a check that
 * the emulation does catch a dropped carry (an input outside that range). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bls12_381/bls12_381.h"
#include "gpu_check.h"

#define SPC_HOST_EMU 1
#include "ff/fr_mul.cuh"

static unsigned long emu_drops;
static const char *emu_last;

void spc_emu_fail(const char *what) {
  emu_drops++;
  emu_last = what;
}

static uint64_t rng_state;
static uint64_t rnd(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* 256-bit little-endian values as 4 x u64 (the fr_t layout) and 8 x u32 (the GPU's) */
static void to32(uint32_t *w, const uint64_t *l, int n64) {
  for (int i = 0; i < n64; i++) {
    w[2 * i] = (uint32_t)l[i];
    w[2 * i + 1] = (uint32_t)(l[i] >> 32);
  }
}
static void to64(uint64_t *l, const uint32_t *w, int n64) {
  for (int i = 0; i < n64; i++) l[i] = w[2 * i] | (uint64_t)w[2 * i + 1] << 32;
}
/* a - b over 4 limbs; returns the borrow */
static int sub4(uint64_t *d, const uint64_t *a, const uint64_t *b) {
  unsigned __int128 brw = 0;
  for (int i = 0; i < 4; i++) {
    unsigned __int128 x = (unsigned __int128)a[i] - b[i] - brw;
    d[i] = (uint64_t)x;
    brw = (x >> 64) ? 1 : 0;
  }
  return (int)brw;
}
static bool below_r(const uint64_t *a) {
  uint64_t d[4];
  return sub4(d, a, BLS_R) != 0;
}
/* a mod r for a < 2^255 (< 2r): the raw limbs as an fr_t */
static fr_t mod_r(const uint64_t *a) {
  fr_t x;
  memcpy(x.l, a, sizeof x.l);
  if (!below_r(a)) sub4(x.l, a, BLS_R);
  return x;
}

static void hex256(char *out, const uint64_t *l) {
  for (int i = 3; i >= 0; i--) sprintf(out + 16 * (3 - i), "%016" PRIx64, l[i]);
}

/* One product on the emulated device code against fr_mul (on raw limbs, each value
 * taken mod r: both compute a b / 2^256 mod r, fully reduced). */
static void check_mul(const uint64_t *a, const uint64_t *b) {
  uint32_t a32[8], b32[8], o32[8];
  to32(a32, a, 4);
  to32(b32, b, 4);
  unsigned long drops = emu_drops;
  spc_fr_mont_mul(o32, a32, b32);
  uint64_t got[4];
  to64(got, o32, 4);
  fr_t x = mod_r(a), y = mod_r(b), want;
  fr_mul(&want, &x, &y);
  bool ok = memcmp(got, want.l, sizeof got) == 0 && emu_drops == drops;
  if (!ok) {
    char ha[65], hb[65], hg[65], hw[65];
    hex256(ha, a);
    hex256(hb, b);
    hex256(hg, got);
    hex256(hw, want.l);
    CHECK(ok, "mul a=%s b=%s: got %s want %s%s%s", ha, hb, hg, hw,
          emu_drops != drops ? ", dropped carry: " : "", emu_drops != drops ? emu_last : "");
  } else {
    CHECK(ok, "mul");
  }
}

/* The reduction alone: t (16 words) / 2^256 mod r. The reference: t mod r from
 * fr_from_bytes_wide (Montgomery form), then two products by the raw limb 1 (each
 * divides the limbs by 2^256): t R -> t -> t / R. */
static void check_redc(const uint32_t *t) {
  uint8_t bytes[64];
  for (int i = 0; i < 16; i++)
    for (int k = 0; k < 4; k++) bytes[4 * i + k] = (uint8_t)(t[i] >> (8 * k));
  fr_t want, one_raw = {{1, 0, 0, 0}};
  fr_from_bytes_wide(&want, bytes);
  fr_mul(&want, &want, &one_raw);
  fr_mul(&want, &want, &one_raw);
  unsigned long drops = emu_drops;
  uint32_t o32[8];
  spc_fr_redc(o32, t);
  uint64_t got[4];
  to64(got, o32, 4);
  bool ok = memcmp(got, want.l, sizeof got) == 0 && emu_drops == drops;
  if (!ok) {
    uint64_t th[8];
    char hl[65], hh[65], hg[65], hw[65];
    to64(th, t, 8);
    hex256(hl, th);
    hex256(hh, th + 4);
    hex256(hg, got);
    hex256(hw, want.l);
    CHECK(ok, "redc t=%s:%s: got %s want %s%s%s", hh, hl, hg, hw,
          emu_drops != drops ? ", dropped carry: " : "", emu_drops != drops ? emu_last : "");
  } else {
    CHECK(ok, "redc");
  }
}

/* t = a random value below r 2^256: a random 512-bit value reduced into range */
static void rnd_below_r_2_256(uint32_t *t) {
  uint64_t l[8];
  for (int i = 0; i < 8; i++) l[i] = rnd();
  l[7] &= 0x7fffffffffffffffull;      /* < 2^511 */
  while (!below_r(l + 4)) l[7] >>= 1; /* the high half below r */
  to32(t, l, 8);
}

/* A random value below 2^255, below r unless wide. */
static void rnd_operand(uint64_t *a, bool wide) {
  for (int i = 0; i < 4; i++) a[i] = rnd();
  a[3] &= 0x7fffffffffffffffull;
  if (!wide && !below_r(a)) sub4(a, a, BLS_R);
}

int main(void) {
  const char *seed_env = getenv("SP_TEST_SEED");
  uint64_t seed = seed_env ? strtoull(seed_env, NULL, 0) : (uint64_t)time(NULL);
  rng_state = seed;
  printf("seed %" PRIu64 " (set SP_TEST_SEED to repeat)\n", seed);

  /* edge operands */
  enum { NE = 48 };
  uint64_t edge[NE][4];
  int ne = 0;
  const uint64_t *r = BLS_R;
  uint64_t v[4];
#define PUSH(x)                              \
  do {                                       \
    memcpy(edge[ne++], (x), sizeof edge[0]); \
  } while (0)
  memset(v, 0, sizeof v);
  PUSH(v); /* 0 */
  v[0] = 1;
  PUSH(v);
  v[0] = 2;
  PUSH(v);
  uint64_t one[4] = {1, 0, 0, 0}, two[4] = {2, 0, 0, 0};
  sub4(v, r, one);
  PUSH(v); /* r - 1 */
  sub4(v, r, two);
  PUSH(v);        /* r - 2 */
  PUSH(FR_ONE.l); /* R mod r */
  for (int i = 0; i < 4; i++) v[i] = r[i] >> 1 | (i < 3 ? r[i + 1] << 63 : 0);
  PUSH(v); /* (r - 1) / 2 */
  v[0]++;
  PUSH(v); /* (r + 1) / 2 */
  sub4(v, r, FR_ONE.l);
  PUSH(v); /* r - R */
  for (int bit = 0; bit < 255; bit += 23) {
    memset(v, 0, sizeof v);
    v[bit / 64] = 1ull << (bit % 64);
    PUSH(v); /* 2^bit (some above r: taken mod r by the reference) */
  }
  const uint32_t pats[4] = {0xffffffffu, 0x80000000u, 0x7fffffffu, 0x00000001u};
  for (int p = 0; p < 4; p++) {
    uint32_t w[8];
    for (int i = 0; i < 8; i++) w[i] = pats[p];
    w[7] &= 0x7fffffffu; /* below 2^255 */
    to64(v, w, 4);
    PUSH(v);
  }
  /* the largest values the product takes: 2^255 - 1, 2^255 - 2, r + 1 */
  memset(v, 0xff, sizeof v);
  v[3] = 0x7fffffffffffffffull;
  PUSH(v);
  v[0]--;
  PUSH(v);
  memcpy(v, r, sizeof v);
  v[0]++;
  PUSH(v);
#undef PUSH

  for (int i = 0; i < ne; i++)
    for (int j = 0; j < ne; j++) check_mul(edge[i], edge[j]);
  for (int i = 0; i < ne; i++)
    for (int k = 0; k < 200; k++) {
      uint64_t b[4];
      rnd_operand(b, k & 1);
      check_mul(edge[i], b);
      check_mul(b, edge[i]);
    }
  for (int k = 0; k < 100000; k++) {
    uint64_t a[4], b[4];
    rnd_operand(a, (k & 7) == 0);
    rnd_operand(b, (k & 7) == 1);
    check_mul(a, b);
  }
  int after_mul = checks;

  /* the reduction over its range: random t, the ends, words of all ones */
  uint32_t t[16];
  memset(t, 0, sizeof t);
  check_redc(t);
  uint64_t tl[8];
  memset(tl, 0xff, 4 * sizeof tl[0]);
  sub4(tl + 4, r, one); /* r 2^256 - 1 */
  to32(t, tl, 8);
  check_redc(t);
  memset(tl, 0, 4 * sizeof tl[0]); /* (r - 1) 2^256 */
  to32(t, tl, 8);
  check_redc(t);
  for (int k = 0; k < 50000; k++) {
    rnd_below_r_2_256(t);
    if (k % 3 == 0) /* low words of all ones or zeros stress the m = -t0 rows */
      for (int i = 0; i < 8; i++)
        if (rnd() & 1) t[i] = (k & 1) ? 0xffffffffu : 0;
    check_redc(t);
  }
  printf("%d products and %d reductions match the CPU library, no dropped carry\n", after_mul,
         checks - after_mul);

  /* the emulation's checks are live: t = 2^512 - 1 is outside the range (t < r 2^256)
   * and must drop a carry somewhere */
  unsigned long drops = emu_drops;
  uint32_t o32[8];
  memset(t, 0xff, sizeof t);
  spc_fr_redc(o32, t);
  CHECK(emu_drops > drops, "redc(2^512 - 1) dropped no carry: the emulation checks nothing");
  if (emu_drops > drops) printf("out of range: the emulation caught \"%s\"\n", emu_last);

  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
