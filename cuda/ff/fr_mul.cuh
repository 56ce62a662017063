/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* fr_mul.cuh -- Fr's Montgomery product on 32-bit limbs, for ff.cuh's spc_fr.
 *
 * Why Fr has a product of its own: the kernels that use Fr (the NTT first) keep the
 * integer multiply pipe busy, so their time is the count of wide multiplies, and two
 * facts about r make that count smaller than the CIOS product's 136 (64 for a * b, 64
 * for m * r, 8 for the m's):
 *  - r = 1 + 0xffffffff * 2^32 + r_hi * 2^64 (r_hi: limbs 2..7), so -r^-1 mod 2^32 is
 *    0xffffffff: a reduction row's m = -t0 is a negation, and m * (r0 + r1 2^32) is
 *    m + m * 0xffffffff * 2^32 = words (t0 + ..) of additions: its low word is -m = t0
 *    and its high word m - [m != 0]. Six wide products a row (limbs 2..7), 48 in all.
 *  - One Karatsuba level on the 8-limb product: a = a0 + a1 X, b = b0 + b1 X (X =
 *    2^128); P0 = a0 b0, P2 = a1 b1 and P1 = (a0 + a1)(b0 + b1), three 4 x 4 products
 *    (48 wide products instead of 64), and a b = P0 + (P1 - P0 - P2) X + P2 X^2. The
 *    sums have a carry bit each (ca, cb); P1 - P0 - P2 = a0 b1 + a1 b0 < 2^256 when a,
 *    b < 2^255 (r < 2^255), so it is computed mod 2^256, where P1 = sa sb + (ca sb + cb
 *    sa) X (the ca cb X^2 term vanishes): the carry bits cost masked additions on the
 *    ALU pipe, which issues beside the multiplier.
 * So a product is 96 wide multiplies and about twice as many additions. The product
 * is then reduced apart (spc_fr_redc): t < r^2 gives t / 2^256 < r, the result of the
 * rows is at most r, so their sum is below 2r: one conditional subtraction.
 *
 * Every chain as in ff.cuh: lo/hi words of ONE product in adjacent words of one
 * accumulator (ptxas fuses the pair into one IMAD.WIDE.U32(.X)), two accumulators per
 * product (even and odd word offsets), and each carry-chain instruction its own `asm
 * volatile` (the carry flag is invisible to the compiler).
 *
 * Host emulation: with SPC_HOST_EMU defined this header is plain C11: each PTX
 * instruction is a C function on an explicit carry flag, and every carry that the device
 * code drops (an instruction without .cc at the end of a chain) is checked to be zero
 * through spc_emu_fail(), which the including test defines; the chains whose carries
 * are dropped by design (mod 2^256 arithmetic) use the _w forms, which do not check.
 * tests/cuda/test_fr_emu.c runs this very code against the CPU library's fr_mul; the
 * device build has one code path, this one. */
#ifndef SEALPROV_CUDA_FR_MUL_CUH
#define SEALPROV_CUDA_FR_MUL_CUH

#include <stdint.h>

#ifdef SPC_HOST_EMU
#define SPC_DI static inline
#define SPC_UNROLL

void spc_emu_fail(const char *what); /* defined by the test that includes this */
static uint32_t spc_emu_cf;          /* the carry (or borrow) flag, CC.CF */

#define SPC_EMU_ADD(a, b, cin) ((uint64_t)(a) + (b) + (cin))
SPC_DI uint32_t spc_emu_set(uint64_t s) {
  spc_emu_cf = (uint32_t)(s >> 32);
  return (uint32_t)s;
}
SPC_DI uint32_t spc_emu_chk(uint64_t s, const char *what) {
  if (s >> 32) spc_emu_fail(what);
  return (uint32_t)s;
}
SPC_DI uint32_t spc_add_cc(uint32_t a, uint32_t b) { return spc_emu_set(SPC_EMU_ADD(a, b, 0)); }
SPC_DI uint32_t spc_addc_cc(uint32_t a, uint32_t b) {
  return spc_emu_set(SPC_EMU_ADD(a, b, spc_emu_cf));
}
SPC_DI uint32_t spc_addc(uint32_t a, uint32_t b) {
  return spc_emu_chk(SPC_EMU_ADD(a, b, spc_emu_cf), "addc dropped a carry");
}
SPC_DI uint32_t spc_addc_w(uint32_t a, uint32_t b) {
  return (uint32_t)SPC_EMU_ADD(a, b, spc_emu_cf);
}
/* sub.cc: CC.CF = borrow; subc: a - (b + CC.CF) */
SPC_DI uint32_t spc_emu_sub(uint32_t a, uint32_t b, uint32_t bin, int setcc) {
  uint64_t d = (uint64_t)a - b - bin;
  if (setcc) spc_emu_cf = (uint32_t)(d >> 63);
  return (uint32_t)d;
}
SPC_DI uint32_t spc_sub_cc(uint32_t a, uint32_t b) { return spc_emu_sub(a, b, 0, 1); }
SPC_DI uint32_t spc_subc_cc(uint32_t a, uint32_t b) { return spc_emu_sub(a, b, spc_emu_cf, 1); }
SPC_DI uint32_t spc_subc_w(uint32_t a, uint32_t b) { return spc_emu_sub(a, b, spc_emu_cf, 0); }
SPC_DI uint32_t spc_emu_lo(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a * b); }
SPC_DI uint32_t spc_emu_hi(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
SPC_DI uint32_t spc_mul_lo(uint32_t a, uint32_t b) { return spc_emu_lo(a, b); }
SPC_DI uint32_t spc_mul_hi(uint32_t a, uint32_t b) { return spc_emu_hi(a, b); }
SPC_DI uint32_t spc_mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
  return spc_emu_set(SPC_EMU_ADD(spc_emu_lo(a, b), c, 0));
}
SPC_DI uint32_t spc_madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
  return spc_emu_set(SPC_EMU_ADD(spc_emu_lo(a, b), c, spc_emu_cf));
}
SPC_DI uint32_t spc_madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
  return spc_emu_set(SPC_EMU_ADD(spc_emu_hi(a, b), c, spc_emu_cf));
}
SPC_DI uint32_t spc_madc_hi(uint32_t a, uint32_t b, uint32_t c) {
  return spc_emu_chk(SPC_EMU_ADD(spc_emu_hi(a, b), c, spc_emu_cf), "madc.hi dropped a carry");
}
#else /* the device */
#define SPC_DI static __device__ __forceinline__
#define SPC_UNROLL _Pragma("unroll")
#define SPC_OP2(name, op)                                       \
  SPC_DI uint32_t name(uint32_t a, uint32_t b) {                \
    uint32_t d;                                                 \
    asm volatile(op " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); \
    return d;                                                   \
  }
#define SPC_OP3(name, op)                                                   \
  SPC_DI uint32_t name(uint32_t a, uint32_t b, uint32_t c) {                \
    uint32_t d;                                                             \
    asm volatile(op " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); \
    return d;                                                               \
  }
SPC_OP2(spc_add_cc, "add.cc.u32")
SPC_OP2(spc_addc_cc, "addc.cc.u32")
SPC_OP2(spc_addc, "addc.u32")
SPC_OP2(spc_addc_w, "addc.u32")
SPC_OP2(spc_sub_cc, "sub.cc.u32")
SPC_OP2(spc_subc_cc, "subc.cc.u32")
SPC_OP2(spc_subc_w, "subc.u32")
SPC_OP2(spc_mul_lo, "mul.lo.u32")
SPC_OP2(spc_mul_hi, "mul.hi.u32")
SPC_OP3(spc_mad_lo_cc, "mad.lo.cc.u32")
SPC_OP3(spc_madc_lo_cc, "madc.lo.cc.u32")
SPC_OP3(spc_madc_hi_cc, "madc.hi.cc.u32")
SPC_OP3(spc_madc_hi, "madc.hi.u32")
#undef SPC_OP2
#undef SPC_OP3
#endif

/* m = -t0 is computed as SPC_FR_ZERO - t0 with a zero that ptxas cannot see: when it
 * knows m = -t0 it issues each m * r[j] lo/hi pair unfused (IMAD.X + IMAD.HI.U32.X for
 * one IMAD.WIDE.U32.X; 45 of the reduction's 48 pairs split, SASS counted), as it
 * did for the CIOS product with the immediate -r^-1 = 0xffffffff. */
#ifdef SPC_HOST_EMU
static const uint32_t SPC_FR_ZERO = 0;
#else
static __constant__ uint32_t SPC_FR_ZERO_C[1] = {0u};
#define SPC_FR_ZERO SPC_FR_ZERO_C[0]
#endif
/* m - [m != 0], the high word of m * 0xffffffff, as one unsigned min (VIADDMNMX):
 * m = 0 gives min(0xffffffff, 0) = 0, else m - 1. */
#ifdef SPC_HOST_EMU
SPC_DI uint32_t spc_fr_mhi(uint32_t m) { return m - 1u < m ? m - 1u : m; }
#else
SPC_DI uint32_t spc_fr_mhi(uint32_t m) { return min(m - 1u, m); }
#endif

/* r's limbs, little-endian (limb 0 is 1 and limb 1 all ones: the reduction needs no
 * product for either). Immediates: the multiply instructions take them as operands. */
#define SPC_FR_L0 0x00000001u
#define SPC_FR_L1 0xffffffffu
#define SPC_FR_L2 0xfffe5bfeu
#define SPC_FR_L3 0x53bda402u
#define SPC_FR_L4 0x09a1d805u
#define SPC_FR_L5 0x3339d808u
#define SPC_FR_L6 0x299d7d48u
#define SPC_FR_L7 0x73eda753u

/* t[0..8) = a * b for 4-limb a, b: 16 wide products, every chain lo/hi pairs of one
 * product in adjacent words of one of two accumulators (as sppark's mont_t rows): e
 * holds words at e[k] = word k, o at o[k] = word k + 1. Row i's pairs of the limbs a[j]
 * with j of i's parity go to e, the others to o, so each row's chains are: the shifted
 * one, whose last pair makes two new top words, then the aligned one, whose carry goes
 * into that new top word. No carry word is made and none overflows: each accumulator
 * is at most the partial product a (b mod 2^(32(i+1))) < 2^(32(i+5)), which its words
 * hold. */
SPC_DI void spc_fr_mul4(uint32_t *t, const uint32_t *a, const uint32_t *b) {
  uint32_t o[6];
  /* row 0: e = a[0,2] b0 at words 0..3, o = a[1,3] b0 at words 1..4 */
  t[0] = spc_mad_lo_cc(a[0], b[0], 0);
  t[1] = spc_madc_hi_cc(a[0], b[0], 0);
  t[2] = spc_madc_lo_cc(a[2], b[0], 0);
  t[3] = spc_madc_hi(a[2], b[0], 0);
  o[0] = spc_mad_lo_cc(a[1], b[0], 0);
  o[1] = spc_madc_hi_cc(a[1], b[0], 0);
  o[2] = spc_madc_lo_cc(a[3], b[0], 0);
  o[3] = spc_madc_hi(a[3], b[0], 0);
  /* row 1: a[1,3] b1 at words 2..5 into e (e[4], e[5] new), a[0,2] b1 at 1..4 into o */
  t[2] = spc_mad_lo_cc(a[1], b[1], t[2]);
  t[3] = spc_madc_hi_cc(a[1], b[1], t[3]);
  t[4] = spc_madc_lo_cc(a[3], b[1], 0);
  t[5] = spc_madc_hi(a[3], b[1], 0);
  o[0] = spc_mad_lo_cc(a[0], b[1], o[0]);
  o[1] = spc_madc_hi_cc(a[0], b[1], o[1]);
  o[2] = spc_madc_lo_cc(a[2], b[1], o[2]);
  o[3] = spc_madc_hi_cc(a[2], b[1], o[3]);
  t[5] = spc_addc(t[5], 0);
  /* row 2: a[1,3] b2 at words 3..6 into o (o[4], o[5] new), a[0,2] b2 at 2..5 into e */
  o[2] = spc_mad_lo_cc(a[1], b[2], o[2]);
  o[3] = spc_madc_hi_cc(a[1], b[2], o[3]);
  o[4] = spc_madc_lo_cc(a[3], b[2], 0);
  o[5] = spc_madc_hi(a[3], b[2], 0);
  t[2] = spc_mad_lo_cc(a[0], b[2], t[2]);
  t[3] = spc_madc_hi_cc(a[0], b[2], t[3]);
  t[4] = spc_madc_lo_cc(a[2], b[2], t[4]);
  t[5] = spc_madc_hi_cc(a[2], b[2], t[5]);
  o[5] = spc_addc(o[5], 0);
  /* row 3: a[1,3] b3 at words 4..7 into e (e[6], e[7] new), a[0,2] b3 at 3..6 into o */
  t[4] = spc_mad_lo_cc(a[1], b[3], t[4]);
  t[5] = spc_madc_hi_cc(a[1], b[3], t[5]);
  t[6] = spc_madc_lo_cc(a[3], b[3], 0);
  t[7] = spc_madc_hi(a[3], b[3], 0);
  o[2] = spc_mad_lo_cc(a[0], b[3], o[2]);
  o[3] = spc_madc_hi_cc(a[0], b[3], o[3]);
  o[4] = spc_madc_lo_cc(a[2], b[3], o[4]);
  o[5] = spc_madc_hi_cc(a[2], b[3], o[5]);
  t[7] = spc_addc(t[7], 0);
  /* e + o: words 1..6 of o, no carry out of word 7 (a b < 2^256) */
  t[1] = spc_add_cc(t[1], o[0]);
  SPC_UNROLL
  for (int k = 2; k < 7; k++) t[k] = spc_addc_cc(t[k], o[k - 1]);
  t[7] = spc_addc(t[7], 0);
}

/* s[0..4) = x[0..4) + x[4..8); returns the carry out as a mask (0 or all ones). */
SPC_DI uint32_t spc_fr_halves_sum(uint32_t *s, const uint32_t *x) {
  s[0] = spc_add_cc(x[0], x[4]);
  s[1] = spc_addc_cc(x[1], x[5]);
  s[2] = spc_addc_cc(x[2], x[6]);
  s[3] = spc_addc_cc(x[3], x[7]);
  return 0u - spc_addc(0, 0);
}

/* t[0..16) = a * b, a, b < 2^255 (8 limbs): one Karatsuba level (see the top). */
SPC_DI void spc_fr_mul_wide(uint32_t *t, const uint32_t *a, const uint32_t *b) {
  uint32_t sa[4], sb[4], m[8];
  spc_fr_mul4(t, a, b);             /* P0 */
  spc_fr_mul4(t + 8, a + 4, b + 4); /* P2 */
  const uint32_t cam = spc_fr_halves_sum(sa, a), cbm = spc_fr_halves_sum(sb, b);
  spc_fr_mul4(m, sa, sb); /* P1 without its carry-bit terms */
  /* + (ca sb + cb sa) X, mod 2^256 */
  m[4] = spc_add_cc(m[4], sb[0] & cam);
  m[5] = spc_addc_cc(m[5], sb[1] & cam);
  m[6] = spc_addc_cc(m[6], sb[2] & cam);
  m[7] = spc_addc_w(m[7], sb[3] & cam);
  m[4] = spc_add_cc(m[4], sa[0] & cbm);
  m[5] = spc_addc_cc(m[5], sa[1] & cbm);
  m[6] = spc_addc_cc(m[6], sa[2] & cbm);
  m[7] = spc_addc_w(m[7], sa[3] & cbm);
  /* the middle term P1 - P0 - P2 = a0 b1 + a1 b0, mod 2^256 (it is below) */
  m[0] = spc_sub_cc(m[0], t[0]);
  SPC_UNROLL
  for (int k = 1; k < 7; k++) m[k] = spc_subc_cc(m[k], t[k]);
  m[7] = spc_subc_w(m[7], t[7]);
  m[0] = spc_sub_cc(m[0], t[8]);
  SPC_UNROLL
  for (int k = 1; k < 7; k++) m[k] = spc_subc_cc(m[k], t[8 + k]);
  m[7] = spc_subc_w(m[7], t[15]);
  /* t = P0 + P2 X^2 already; + middle X (no carry out: a b < 2^510) */
  t[4] = spc_add_cc(t[4], m[0]);
  SPC_UNROLL
  for (int k = 5; k < 12; k++) t[k] = spc_addc_cc(t[k], m[k - 4]);
  SPC_UNROLL
  for (int k = 12; k < 15; k++) t[k] = spc_addc_cc(t[k], 0);
  t[15] = spc_addc(t[15], 0);
}

/* ---- the reduction ------------------------------------------------------------------
 * Rows on two 8-word halves as ff.cuh's redc: `al` is aligned with the current word 0
 * (al[k] = word k), `off` is offset (off[k] = word k - 1 on entry, k + 1 on exit); the
 * halves swap roles every row, and off's shift down two words rides in its chain. A
 * row, with t0 the completed word 0 and m = -t0:
 *   word 0: t0 + m * r0 = t0 + m = 0, carrying [t0 != 0] into word 1 (al's chain);
 *   words 1, 2: m * r1 = m * 0xffffffff has low word -m = t0 and high word
 *     m - [m != 0] (= ~t0, or 0 when t0 = 0): two additions at the head of off's chain;
 *   words 2..8: m * r[2..7], three lo/hi pairs in each half.
 * The high half of t rides in as the addends of off's last pair, which would add zero
 * (words 7 and 8 of the row, both new): row r takes t[r + 7] at word 7, and the last row
 * also t[15] at word 8; no row's m reads them (word r + 7 > 7 >= r), and the value
 * stays below 2^(32 * 9): (t mod 2^(32(r+8)) + M r) / 2^(32 r) < 2^256 + 2^32 r, and in
 * the last row (t + M r) / 2^224 < 2^33 r. So each accumulator's words hold it and the
 * carries the chains drop are zero (the host emulation checks each). */
SPC_DI void spc_fr_redc_row(uint32_t *al, uint32_t *off, uint32_t tlo, uint32_t thi) {
  al[0] = spc_add_cc(al[0], off[1]); /* word 0 complete; the carry goes to word 1 */
  const uint32_t t0 = al[0], m = SPC_FR_ZERO - t0, mh = spc_fr_mhi(m);
  off[0] = spc_addc_cc(off[2], t0); /* word 1 */
  off[1] = spc_addc_cc(off[3], mh); /* word 2 */
  off[2] = spc_madc_lo_cc(SPC_FR_L3, m, off[4]);
  off[3] = spc_madc_hi_cc(SPC_FR_L3, m, off[5]);
  off[4] = spc_madc_lo_cc(SPC_FR_L5, m, off[6]);
  off[5] = spc_madc_hi_cc(SPC_FR_L5, m, off[7]);
  off[6] = spc_madc_lo_cc(SPC_FR_L7, m, tlo);
  off[7] = spc_madc_hi(SPC_FR_L7, m, thi);
  al[0] = spc_add_cc(al[0], m); /* 0 */
  al[1] = spc_addc_cc(al[1], 0);
  al[2] = spc_madc_lo_cc(SPC_FR_L2, m, al[2]);
  al[3] = spc_madc_hi_cc(SPC_FR_L2, m, al[3]);
  al[4] = spc_madc_lo_cc(SPC_FR_L4, m, al[4]);
  al[5] = spc_madc_hi_cc(SPC_FR_L4, m, al[5]);
  al[6] = spc_madc_lo_cc(SPC_FR_L6, m, al[6]);
  al[7] = spc_madc_hi_cc(SPC_FR_L6, m, al[7]);
  off[7] = spc_addc(off[7], 0); /* word 8 */
}

/* out = e - r if e >= r, else e (e < 2r) */
SPC_DI void spc_fr_sub_r_once(uint32_t *out, const uint32_t *e) {
  uint32_t d[8];
  d[0] = spc_sub_cc(e[0], SPC_FR_L0);
  d[1] = spc_subc_cc(e[1], SPC_FR_L1);
  d[2] = spc_subc_cc(e[2], SPC_FR_L2);
  d[3] = spc_subc_cc(e[3], SPC_FR_L3);
  d[4] = spc_subc_cc(e[4], SPC_FR_L4);
  d[5] = spc_subc_cc(e[5], SPC_FR_L5);
  d[6] = spc_subc_cc(e[6], SPC_FR_L6);
  d[7] = spc_subc_cc(e[7], SPC_FR_L7);
  const uint32_t brw = spc_subc_w(0, 0);
  SPC_UNROLL
  for (int k = 0; k < 8; k++) out[k] = brw ? e[k] : d[k];
}

/* out = t / 2^256 mod r, fully reduced, for t < r 2^256 (16 words). */
SPC_DI void spc_fr_redc(uint32_t *out, const uint32_t *t) {
  uint32_t x[8], y[8];
  SPC_UNROLL
  for (int k = 0; k < 8; k++) x[k] = t[k];
  /* the first row: y starts as the offset half (y[k] = word k + 1), products only (t's
   * high half enters from the second row on) */
  const uint32_t t0 = x[0], m = SPC_FR_ZERO - t0;
  y[0] = t0;
  y[1] = spc_fr_mhi(m);
  y[2] = spc_mul_lo(SPC_FR_L3, m);
  y[3] = spc_mul_hi(SPC_FR_L3, m);
  y[4] = spc_mul_lo(SPC_FR_L5, m);
  y[5] = spc_mul_hi(SPC_FR_L5, m);
  y[6] = spc_mul_lo(SPC_FR_L7, m);
  y[7] = spc_mul_hi(SPC_FR_L7, m);
  x[0] = spc_add_cc(x[0], m); /* 0 */
  x[1] = spc_addc_cc(x[1], 0);
  x[2] = spc_madc_lo_cc(SPC_FR_L2, m, x[2]);
  x[3] = spc_madc_hi_cc(SPC_FR_L2, m, x[3]);
  x[4] = spc_madc_lo_cc(SPC_FR_L4, m, x[4]);
  x[5] = spc_madc_hi_cc(SPC_FR_L4, m, x[5]);
  x[6] = spc_madc_lo_cc(SPC_FR_L6, m, x[6]);
  x[7] = spc_madc_hi_cc(SPC_FR_L6, m, x[7]);
  y[7] = spc_addc(y[7], 0);
  SPC_UNROLL
  for (int r = 1; r < 8; r++) {
    if (r & 1)
      spc_fr_redc_row(y, x, t[r + 7], r == 7 ? t[15] : 0u);
    else
      spc_fr_redc_row(x, y, t[r + 7], 0u);
  }
  /* the last row had y aligned, its word 0 zero: word k = x[k] + y[k+1] (t's high half
   * is in already: (t + M r) / 2^256 < 2r) */
  x[0] = spc_add_cc(x[0], y[1]);
  SPC_UNROLL
  for (int k = 1; k < 7; k++) x[k] = spc_addc_cc(x[k], y[k + 1]);
  x[7] = spc_addc(x[7], 0);
  spc_fr_sub_r_once(out, x);
}

/* out = a b / 2^256 mod r for a, b < r */
SPC_DI void spc_fr_mont_mul(uint32_t *out, const uint32_t *a, const uint32_t *b) {
  uint32_t t[16];
  spc_fr_mul_wide(t, a, b);
  spc_fr_redc(out, t);
}

#endif
