/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* ff.cuh -- BLS12-381 Fp and Fr Montgomery arithmetic on the GPU, and Fp2.
 *
 * Representation: exactly the CPU library's (plugin/bls12_381/bls12_381.h): Fp is
 * Montgomery with R = 2^384, Fr with R = 2^256, limbs little-endian. The GPU works on
 * 32-bit limbs: on a little-endian machine 12 x u32 and 6 x u64 are the same bytes,
 * so device memory is a byte copy of host fp_t / fr_t / g1_affine_t arrays, and the
 * Montgomery constant -p^-1 mod 2^32 gives the same reduction as the CPU's 64-bit one
 * (both compute a*b/R mod p, fully reduced below p).
 *
 * Every carry-chain instruction is its own `asm volatile`: the carry flag is invisible
 * to the compiler, and without `volatile` it reordered and merged the statements (all
 * products were wrong on the first GPU run).
 * Multiplication is CIOS with PTX carry chains (mad.lo.cc / madc.hi.cc). Why this
 * bounds hold without a (N+2)-th word: p < 2^381 and r < 2^255 leave spare bits, so
 * t + a*b_i + m*p < 2^(32(N+1)) in every row (t < 2p, a < p, b_i, m < 2^32).
 * The one template serves Fp and Fr (STYLE: templates only where the fields share
 * code); the modulus lives in __constant__ memory, which the multiply instructions
 * read directly as operands.
 */
#ifndef SEALPROV_CUDA_FF_CUH
#define SEALPROV_CUDA_FF_CUH

#include <stdint.h>

static __constant__ uint32_t SPC_FP_P[12] = {0xffffaaabu, 0xb9feffffu, 0xb153ffffu, 0x1eabfffeu,
                                             0xf6b0f624u, 0x6730d2a0u, 0xf38512bfu, 0x64774b84u,
                                             0x434bacd7u, 0x4b1ba7b6u, 0x397fe69au, 0x1a0111eau};
static __constant__ uint32_t SPC_FP_ONE[12] = {/* 2^384 mod p */
                                               0x0002fffdu, 0x76090000u, 0xc40c0002u, 0xebf4000bu,
                                               0x53c758bau, 0x5f489857u, 0x70525745u, 0x77ce5853u,
                                               0xa256ec6du, 0x5c071a97u, 0xfa80e493u, 0x15f65ec3u};
static __constant__ uint32_t SPC_FP_R2[12] = {/* 2^768 mod p */
                                              0x1c341746u, 0xf4df1f34u, 0x09d104f1u, 0x0a76e6a6u,
                                              0x4c95b6d5u, 0x8de5476cu, 0x939d83c0u, 0x67eb88a9u,
                                              0xb519952du, 0x9a793e85u, 0x92cae3aau, 0x11988fe5u};
static __constant__ uint32_t SPC_FR_P[8] = {0x00000001u, 0xffffffffu, 0xfffe5bfeu, 0x53bda402u,
                                            0x09a1d805u, 0x3339d808u, 0x299d7d48u, 0x73eda753u};
static __constant__ uint32_t SPC_FR_ONE[8] = {/* 2^256 mod r */
                                              0xfffffffeu, 0x00000001u, 0x00034802u, 0x5884b7fau,
                                              0xecbc4ff5u, 0x998c4fefu, 0xacc5056fu, 0x1824b159u};
static __constant__ uint32_t SPC_FR_R2[8] = {/* 2^512 mod r */
                                             0xf3f29c6du, 0xc999e990u, 0x87925c23u, 0x2b6cedcbu,
                                             0x7254398fu, 0x05d31496u, 0x9f59ff11u, 0x0748d9d9u};

/* Fr's -r^-1 mod 2^32 is 0xffffffff. As an immediate, ptxas turns m = t * M0 into a
 * negation and then issues about half of the reduction's lo/hi pairs unfused (IMAD.X +
 * IMAD.HI.U32.X): 272 instructions in a loop of products against 216 when M0 is read
 * from constant memory, where every pair becomes one IMAD.WIDE.U32.X (SASS of both
 * forms). So Fr reads it from here; Fp's M0 stays an immediate (its
 * pairs all fuse either way). */
static __constant__ uint32_t SPC_FR_M0[1] = {0xffffffffu};

struct spc_fp_cfg {
  static const int N = 12;
  static const uint32_t M0 = 0xfffcfffdu; /* -p^-1 mod 2^32 */
  __device__ __forceinline__ static uint32_t m0() { return M0; }
  __device__ __forceinline__ static uint32_t mod(int i) { return SPC_FP_P[i]; }
  __device__ __forceinline__ static uint32_t one(int i) { return SPC_FP_ONE[i]; }
  __device__ __forceinline__ static uint32_t r2(int i) { return SPC_FP_R2[i]; }
};
struct spc_fr_cfg {
  static const int N = 8;
  static const uint32_t M0 = 0xffffffffu; /* -r^-1 mod 2^32 */
  __device__ __forceinline__ static uint32_t m0() { return SPC_FR_M0[0]; }
  __device__ __forceinline__ static uint32_t mod(int i) { return SPC_FR_P[i]; }
  __device__ __forceinline__ static uint32_t one(int i) { return SPC_FR_ONE[i]; }
  __device__ __forceinline__ static uint32_t r2(int i) { return SPC_FR_R2[i]; }
};

/* 16-byte alignment lets global loads and stores of elements use 128-bit accesses
 * (32 and 48 bytes are multiples of 16, so the layout is unchanged). */
template <class C>
struct __align__(16) spc_mont {
  static const int N = C::N;
  uint32_t v[C::N];

  __device__ __forceinline__ static spc_mont zero() {
    spc_mont r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = 0;
    return r;
  }
  __device__ __forceinline__ static spc_mont one() {
    spc_mont r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = C::one(i);
    return r;
  }
  __device__ __forceinline__ bool is_zero() const {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; i++) acc |= v[i];
    return acc == 0;
  }
  __device__ __forceinline__ bool eq(const spc_mont &b) const {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; i++) acc |= v[i] ^ b.v[i];
    return acc == 0;
  }

  /* r = a + b mod p. Inputs < p; a + b < 2^(32N) since p has spare top bits. */
  __device__ __forceinline__ static spc_mont add(const spc_mont &a, const spc_mont &b) {
    uint32_t s[N];
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < N - 1; i++)
      asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(s[i]) : "r"(a.v[i]), "r"(b.v[i]));
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(s[N - 1]) : "r"(a.v[N - 1]), "r"(b.v[N - 1]));
    return sub_p_once(s); /* a + b < 2p */
  }

  /* r = a - b mod p. */
  __device__ __forceinline__ static spc_mont sub(const spc_mont &a, const spc_mont &b) {
    uint32_t d[N], brw;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < N; i++)
      asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(a.v[i]), "r"(b.v[i]));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(brw));
    spc_mont r;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(d[0]), "r"(C::mod(0) & brw));
#pragma unroll
    for (int i = 1; i < N - 1; i++)
      asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(d[i]), "r"(C::mod(i) & brw));
    asm volatile("addc.u32 %0, %1, %2;"
                 : "=r"(r.v[N - 1])
                 : "r"(d[N - 1]), "r"(C::mod(N - 1) & brw));
    return r;
  }

  __device__ __forceinline__ static spc_mont dbl(const spc_mont &a) { return add(a, a); }

  __device__ __forceinline__ static spc_mont neg(const spc_mont &a) {
    spc_mont z = zero();
    return sub(z, a);
  }

  /* ---- Montgomery product ----------------------------------------------------
   * CIOS with the accumulator split into two interleaved halves (technique as in
   * sppark's mont_t; our own code): the products a[j]*b_i of even j go to `even`
   * (lo at word j, hi at word j+1) and those of odd j to `odd`, which holds word
   * k+1 at index k. Each half is then one carry chain of lo/hi pairs of the SAME
   * product into adjacent words, with no separate carry-propagation row: ptxas issues
   * each pair as a wide multiply-add instead of IMAD + IMAD.HI + two carry adds
   * (~330 instructions a product instead of ~1,130).
   * Value: T = E + O * 2^32. A row adds a*b_i, then m*p with m = E[0]*M0, which
   * zeroes word 0; T/2^32 = O + E/2^32, so the halves swap roles every row, and the
   * stale half is shifted down two words inside the next row's chain (rshift).
   * Bounds as in the plain CIOS: T < 2^(32(N+1)) throughout (p < 2^381, r < 2^255),
   * so the carries that the chains drop are zero. */
  /* acc[j], acc[j+1] = a[j] * bi for even j (a is read with stride 2) */
  __device__ __forceinline__ static void mul_n(uint32_t * acc, const uint32_t *a, uint32_t bi) {
#pragma unroll
    for (int j = 0; j < N; j += 2)
      asm("mul.lo.u32 %0, %2, %3; mul.hi.u32 %1, %2, %3;"
          : "=r"(acc[j]), "=r"(acc[j + 1])
          : "r"(a[j]), "r"(bi));
  }
  /* acc += a[even j] * bi as one chain; leaves the carry out of word N in CC */
  __device__ __forceinline__ static void cmad_n(uint32_t * acc, const uint32_t *a, uint32_t bi) {
    asm volatile("mad.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                 : "+r"(acc[0]), "+r"(acc[1])
                 : "r"(a[0]), "r"(bi));
#pragma unroll
    for (int j = 2; j < N; j += 2)
      asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                   : "+r"(acc[j]), "+r"(acc[j + 1])
                   : "r"(a[j]), "r"(bi));
  }
  /* acc[j] = acc[j+2] + a[even j] * bi (+ CC in): shift down two words while adding */
  __device__ __forceinline__ static void madc_n_rshift(uint32_t * acc, const uint32_t *a,
                                                       uint32_t bi) {
#pragma unroll
    for (int j = 0; j < N - 2; j += 2)
      asm volatile("madc.lo.cc.u32 %0, %2, %3, %4; madc.hi.cc.u32 %1, %2, %3, %5;"
                   : "=r"(acc[j]), "=r"(acc[j + 1])
                   : "r"(a[j]), "r"(bi), "r"(acc[j + 2]), "r"(acc[j + 3]));
    asm volatile("madc.lo.cc.u32 %0, %2, %3, 0; madc.hi.u32 %1, %2, %3, 0;"
                 : "=r"(acc[N - 2]), "=r"(acc[N - 1])
                 : "r"(a[N - 2]), "r"(bi));
  }
  /* One CIOS row on the halves (al = aligned, off = offset by one word). */
  __device__ __forceinline__ static void row(uint32_t * al, uint32_t * off, const uint32_t *a,
                                             uint32_t bi, bool first) {
    if (first) {
      mul_n(off, a + 1, bi);
      mul_n(al, a, bi);
    } else {
      asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(al[0]) : "r"(off[1]));
      madc_n_rshift(off, a + 1, bi);
      cmad_n(al, a, bi);
      asm volatile("addc.u32 %0, %0, 0;" : "+r"(off[N - 1]));
    }
    const uint32_t m = al[0] * C::m0();
    uint32_t pm[N]; /* constant-memory operands once unrolled */
#pragma unroll
    for (int j = 0; j < N; j++) pm[j] = C::mod(j);
    cmad_n(off, pm + 1, m); /* its carry out of word N+1 is zero (bounds) */
    cmad_n(al, pm, m);
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(off[N - 1]));
  }

  /* Fp products and squares are calls, Fr's are inlined. As calls, one copy of each
   * serves the whole kernel: inlined, a mixed addition is ~67 KB of straight code by
   * estimate, and instruction fetch held back the accumulation kernels that size. The
   * NTT's Fr products stay inline (their loops are short and register-light). Operands
   * go by value: through const references they went through local memory (the caller
   * stored both, the callee loaded them); by value they travel in registers: G1 MSM
   * 2^24 113.7 -> 104.9 ms on the H200. */
  __device__ __noinline__ static spc_mont mul_call(spc_mont a, spc_mont b) { return mul_inl(a, b); }
  __device__ __noinline__ static spc_mont sqr_call(spc_mont a) { return sqr_inl(a); }
  __device__ __forceinline__ static spc_mont mul(const spc_mont &a, const spc_mont &b) {
    return N == 12 ? mul_call(a, b) : mul_inl(a, b);
  }
  __device__ __forceinline__ static spc_mont sqr(const spc_mont &a) {
    return N == 12 ? sqr_call(a) : sqr_inl(a);
  }

  /* (a*b - c*d) / 2^(32N) mod p with one reduction instead of two: the two products
   * unreduced (mul_wide), their difference, p * 2^(32N) added when it is negative, then
   * redc. Why redc's input bound holds: a*b, c*d < p^2, so the difference lies in
   * (-p^2, p^2); when negative, adding p R leaves it in (pR - p^2, pR); when not, it is
   * below p^2 < pR. Both inside redc's t < pR. The y of an addition, R (Q - X3) -
   * Y1 PPP, has this form: one of the ten reductions of a mixed addition goes (the
   * accumulation kernel is bound by the multiply pipe). */
  __device__ __noinline__ static spc_mont mul_sub_mul_call(spc_mont a, spc_mont b, spc_mont c,
                                                           spc_mont d) {
    return mul_sub_mul_inl(a, b, c, d);
  }
  __device__ __forceinline__ static spc_mont mul_sub_mul(const spc_mont &a, const spc_mont &b,
                                                         const spc_mont &c, const spc_mont &d) {
#ifdef SPC_NO_MUL_SUB_MUL /* the two reductions, for A/B measurements */
    return sub(mul(a, b), mul(c, d));
#else
    return N == 12 ? mul_sub_mul_call(a, b, c, d) : mul_sub_mul_inl(a, b, c, d);
#endif
  }
  __device__ __forceinline__ static spc_mont mul_sub_mul_inl(const spc_mont &a, const spc_mont &b,
                                                             const spc_mont &c, const spc_mont &d) {
    uint32_t t[2 * N], u[2 * N];
    mul_wide(t, a, b);
    mul_wide(u, c, d);
    wide_add_p_hi(t, wide_sub(t, u)); /* negative: + p * 2^(32N) */
    return redc(t);
  }

  /* t -= u over 2N words; returns all ones when it went below zero, else 0. */
  __device__ __forceinline__ static uint32_t wide_sub(uint32_t * t, const uint32_t *u) {
    uint32_t brw;
    asm volatile("sub.cc.u32 %0, %0, %1;" : "+r"(t[0]) : "r"(u[0]));
#pragma unroll
    for (int k = 1; k < 2 * N; k++)
      asm volatile("subc.cc.u32 %0, %0, %1;" : "+r"(t[k]) : "r"(u[k]));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(brw));
    return brw;
  }
  /* t += (p * 2^(32N)) & mask over 2N words: a negative t (mask all ones, the sign of a
   * difference) made redc's input; the carry out of the top word cancels the borrow. */
  __device__ __forceinline__ static void wide_add_p_hi(uint32_t * t, uint32_t mask) {
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(t[N]) : "r"(C::mod(0) & mask));
#pragma unroll
    for (int k = 1; k < N - 1; k++)
      asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(t[N + k]) : "r"(C::mod(k) & mask));
    asm volatile("addc.u32 %0, %0, %1;" : "+r"(t[2 * N - 1]) : "r"(C::mod(N - 1) & mask));
  }

  /* t[0..2N) = a * b, not reduced: schoolbook rows on two accumulators as in sqr_inl
   * (e: lo/hi pairs starting at even word positions, o: at odd ones); row i's pairs of
   * even j start at positions of i's parity, those of odd j at the other. Carry words:
   * rows 2k-1 and 2k end their chains in the same accumulator at the same word, so a
   * carry word holds at most 2 before the next row's chain covers it (the host model,
   * tests/cuda/ff_model.py, asserts it and every dropped carry zero). */
  __device__ __forceinline__ static void mul_wide(uint32_t * t, const spc_mont &x,
                                                  const spc_mont &y) {
    uint32_t o[2 * N];
#pragma unroll
    for (int k = 0; k < 2 * N; k++) t[k] = o[k] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
      wide_chain(i & 1 ? o : t, x.v, y.v[i], i, 0);
      wide_chain(i & 1 ? t : o, x.v, y.v[i], i, 1);
    }
    wide_fold(t, o);
  }

  /* Montgomery product a*b/2^(32N) mod p, fully reduced (< p). */
  __device__ __forceinline__ static spc_mont mul_inl(const spc_mont &a, const spc_mont &b) {
    uint32_t e[N], o[N];
#pragma unroll
    for (int i = 0; i < N; i += 2) {
      row(e, o, a.v, b.v[i], i == 0);
      row(o, e, a.v, b.v[i + 1], false);
    }
    /* the last row (odd i) had o aligned, its word 0 now zero: T/2^32 has word k =
     * e[k] + o[k+1] */
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(e[0]) : "r"(o[1]));
#pragma unroll
    for (int j = 1; j < N - 1; j++)
      asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(e[j]) : "r"(o[j + 1]));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(e[N - 1]));
    return sub_p_once(e); /* T < 2p */
  }

  /* e - p if e >= p, else e (e < 2p). */
  __device__ __forceinline__ static spc_mont sub_p_once(const uint32_t *e) {
    uint32_t d[N], brw;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(e[0]), "r"(C::mod(0)));
#pragma unroll
    for (int i = 1; i < N; i++)
      asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(e[i]), "r"(C::mod(i)));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(brw));
    spc_mont r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = brw ? e[i] : d[i];
    return r;
  }

  /* ---- squaring ----------------------------------------------------------------
   * a^2 / 2^(32N) mod p from N(N+1)/2 limb products instead of N^2 (78 of 144 for
   * Fp): the cross products a[i]a[j], i < j, once, then doubled, plus the squares
   * a[i]^2; the 2N-word square is then reduced (redc: N^2 products, as in mul).
   * The cross products go, as in mul, to two accumulators so that every chain is
   * lo/hi pairs of one product in adjacent words: `o` takes those at odd word
   * positions i + j, `e` those at even ones (both indexed by absolute position).
   * Row i adds one chain to each, and its carry goes into the word after the chain's
   * last pair. Why that add never overflows: in one accumulator the chains of rows
   * i - 1 and i end one word apart (their last j are N - 1 and N - 2 in some order).
   * If row i's ends higher, its last pair's high word is new and the carry word
   * above it too; if lower, the carry lands on row i - 1's carry word, which holds
   * at most 1. So no carry word ever exceeds 2. The host model of this exact
   * sequence (tests/cuda/ff_model.py) asserts it, and every dropped carry zero, over
   * random and edge operands of both fields. */
  /* w[i+j], w[i+j+1] += a[j] * bi for j = j0, j0 + 2, ... < N: one chain of lo/hi
   * pairs, its carry into the word after the last pair */
  __device__ __forceinline__ static void wide_chain(uint32_t * w, const uint32_t *a, uint32_t bi,
                                                    int i, int j0) {
    if (j0 >= N) return;
    asm volatile("mad.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                 : "+r"(w[i + j0]), "+r"(w[i + j0 + 1])
                 : "r"(a[j0]), "r"(bi));
    int j = j0 + 2;
#pragma unroll
    for (; j < N; j += 2)
      asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                   : "+r"(w[i + j]), "+r"(w[i + j + 1])
                   : "r"(a[j]), "r"(bi));
    if (i + j < 2 * N) asm volatile("addc.u32 %0, %0, 0;" : "+r"(w[i + j]));
  }

  /* e += o over 2N words (the two accumulators of the chains; no carry out) */
  __device__ __forceinline__ static void wide_fold(uint32_t * e, const uint32_t *o) {
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(e[0]) : "r"(o[0]));
#pragma unroll
    for (int k = 1; k < 2 * N - 1; k++)
      asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(e[k]) : "r"(o[k]));
    asm volatile("addc.u32 %0, %0, %1;" : "+r"(e[2 * N - 1]) : "r"(o[2 * N - 1]));
  }

  __device__ __forceinline__ static spc_mont sqr_inl(const spc_mont &x) {
#ifdef SPC_SQR_AS_MUL /* the product instead, for A/B measurements */
    return mul_inl(x, x);
#endif
    uint32_t t[2 * N];
    sqr_wide(t, x);
    return redc(t);
  }

  /* t[0..2N) = x^2, not reduced (the first half of sqr_inl; subgroup.cuh's doubling
   * subtracts 8 B^2 before its one reduction). */
  __device__ __forceinline__ static void sqr_wide(uint32_t * t, const spc_mont &x) {
    const uint32_t *a = x.v;
    uint32_t e[2 * N], o[2 * N];
#pragma unroll
    for (int k = 0; k < 2 * N; k++) e[k] = o[k] = 0;
#pragma unroll
    for (int i = 0; i < N - 1; i++) {
      wide_chain(o, a, a[i], i, i + 1);
      wide_chain(e, a, a[i], i, i + 2);
    }
    wide_fold(e, o); /* the cross products (< a^2 / 2) */
                     /* doubled, plus the squares on the diagonal: t = a^2 */
#pragma unroll
    for (int k = 2 * N - 1; k > 0; k--) t[k] = __funnelshift_l(e[k - 1], e[k], 1);
    t[0] = e[0] << 1;
    asm volatile("mad.lo.cc.u32 %0, %2, %2, %0; madc.hi.cc.u32 %1, %2, %2, %1;"
                 : "+r"(t[0]), "+r"(t[1])
                 : "r"(a[0]));
#pragma unroll
    for (int i = 1; i < N - 1; i++)
      asm volatile("madc.lo.cc.u32 %0, %2, %2, %0; madc.hi.cc.u32 %1, %2, %2, %1;"
                   : "+r"(t[2 * i]), "+r"(t[2 * i + 1])
                   : "r"(a[i]));
    asm volatile("madc.lo.cc.u32 %0, %2, %2, %0; madc.hi.u32 %1, %2, %2, %1;"
                 : "+r"(t[2 * N - 2]), "+r"(t[2 * N - 1])
                 : "r"(a[N - 1]));
  }

  /* One reduction row on the halves of mul (al aligned, off offset by one word; off
   * is the half that was aligned in the previous row). As in mul, off's shift down
   * two words rides in a product chain, here that of m * p[odd j], so m must be
   * known first: it is computed in the same asm statement as the add that completes
   * word 0, whose carry that chain takes in (mul.lo leaves the carry flag alone). */
  __device__ __forceinline__ static void redc_row(uint32_t * al, uint32_t * off,
                                                  const uint32_t *pm) {
    uint32_t m;
    asm volatile("add.cc.u32 %0, %0, %2; mul.lo.u32 %1, %0, %3;"
                 : "+r"(al[0]), "=r"(m)
                 : "r"(off[1]), "r"(C::m0()));
    madc_n_rshift(off, pm + 1, m);
    cmad_n(al, pm, m);
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(off[N - 1]));
  }

  /* Montgomery reduction of a 2N-word t < p * 2^(32N): t / 2^(32N) mod p, fully
   * reduced. The low half is reduced row by row as in mul ((t_lo + M p) / 2^(32N) <=
   * p), then the high half (< p) is added: < 2p, one subtraction. */
  __device__ __forceinline__ static spc_mont redc(const uint32_t *t) {
    uint32_t x[N], y[N], pm[N];
#pragma unroll
    for (int j = 0; j < N; j++) {
      pm[j] = C::mod(j);
      x[j] = t[j];
    }
    const uint32_t m = x[0] * C::m0();
    mul_n(y, pm + 1, m);
    cmad_n(x, pm, m);
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(y[N - 1]));
#pragma unroll
    for (int r = 1; r < N; r++) {
      if (r & 1)
        redc_row(y, x, pm);
      else
        redc_row(x, y, pm);
    }
    /* N even: the last row had y aligned, its word 0 zero; word k = x[k] + y[k+1] */
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(x[0]) : "r"(y[1]));
#pragma unroll
    for (int j = 1; j < N - 1; j++)
      asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(x[j]) : "r"(y[j + 1]));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(x[N - 1]));
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(x[0]) : "r"(t[N]));
#pragma unroll
    for (int j = 1; j < N - 1; j++)
      asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(x[j]) : "r"(t[N + j]));
    asm volatile("addc.u32 %0, %0, %1;" : "+r"(x[N - 1]) : "r"(t[2 * N - 1]));
    return sub_p_once(x);
  }

  /* Montgomery form of a canonical value (x < p): x * R^2 / R. */
  __device__ __forceinline__ static spc_mont to_mont(const spc_mont &x) {
    spc_mont r2;
#pragma unroll
    for (int i = 0; i < N; i++) r2.v[i] = C::r2(i);
    return mul(x, r2);
  }
  /* Canonical value of a Montgomery element: a * 1 / R. */
  __device__ __forceinline__ static spc_mont from_mont(const spc_mont &a) {
    spc_mont o = zero();
    o.v[0] = 1;
    return mul(a, o);
  }
  /* True if x (taken as a plain integer) is < p. */
  __device__ __forceinline__ static bool lt_mod(const spc_mont &x) {
    uint32_t d, brw;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(x.v[0]), "r"(C::mod(0)));
#pragma unroll
    for (int i = 1; i < N; i++)
      asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(x.v[i]), "r"(C::mod(i)));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(brw));
    (void)d;
    return brw != 0;
  }
};

typedef spc_mont<spc_fp_cfg> spc_fp;
typedef spc_mont<spc_fr_cfg> spc_fr;

/* Fp2 = Fp[u]/(u^2 + 1), same layout as the CPU's fp2_t (c0 then c1). */
struct spc_fp2 {
  spc_fp c0, c1;

  __device__ __forceinline__ static spc_fp2 zero() {
    spc_fp2 r;
    r.c0 = spc_fp::zero();
    r.c1 = spc_fp::zero();
    return r;
  }
  __device__ __forceinline__ static spc_fp2 one() {
    spc_fp2 r;
    r.c0 = spc_fp::one();
    r.c1 = spc_fp::zero();
    return r;
  }
  __device__ __forceinline__ bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  __device__ __forceinline__ bool eq(const spc_fp2 &b) const { return c0.eq(b.c0) && c1.eq(b.c1); }
  __device__ __forceinline__ static spc_fp2 add(const spc_fp2 &a, const spc_fp2 &b) {
    spc_fp2 r;
    r.c0 = spc_fp::add(a.c0, b.c0);
    r.c1 = spc_fp::add(a.c1, b.c1);
    return r;
  }
  __device__ __forceinline__ static spc_fp2 sub(const spc_fp2 &a, const spc_fp2 &b) {
    spc_fp2 r;
    r.c0 = spc_fp::sub(a.c0, b.c0);
    r.c1 = spc_fp::sub(a.c1, b.c1);
    return r;
  }
  __device__ __forceinline__ static spc_fp2 dbl(const spc_fp2 &a) { return add(a, a); }
  __device__ __forceinline__ static spc_fp2 neg(const spc_fp2 &a) {
    spc_fp2 r;
    r.c0 = spc_fp::neg(a.c0);
    r.c1 = spc_fp::neg(a.c1);
    return r;
  }
  /* ---- products with lazy reduction ------------------------------------------
   * Karatsuba on unreduced 24-word Fp products: t0 = a0 b0, t1 = a1 b1 and s = (a0 +
   * a1)(b0 + b1) (the sums reduced mod p, so every factor is < p and every product <
   * p^2), then c0 = redc(t0 - t1), c1 = redc(s - t0 - t1): three wide products and two
   * reductions where three Fp products had three (the reduction is ~130 of a
   * product's ~277 IMAD.WIDE: -17 % by count; where it pays: mul_lazy). The words are two's
   * complement over 768 bits; a value v with |v| < p 2^384 (pR) is made redc's input
   * by adding pR when negative (the sign is the top bit: |v| < 3 p^2 < 2^764). Bounds:
   * t0 - t1 in (-p^2, p^2); s - t0 - t1 in (-2 p^2, p^2), since s is the product of
   * the reduced sums, not a0 b1 + a1 b0 itself; the difference of two such (mul_sub_mul)
   * in (-3 p^2, 3 p^2). All below pR because 3p < 2^384 (p < 2^381). */
  static const int W = 2 * spc_fp::N;
  /* t -= u over W words, two's complement (the borrow out is dropped) */
  __device__ __forceinline__ static void w_sub(uint32_t *t, const uint32_t *u) {
    asm volatile("sub.cc.u32 %0, %0, %1;" : "+r"(t[0]) : "r"(u[0]));
#pragma unroll
    for (int k = 1; k < W - 1; k++)
      asm volatile("subc.cc.u32 %0, %0, %1;" : "+r"(t[k]) : "r"(u[k]));
    asm volatile("subc.u32 %0, %0, %1;" : "+r"(t[W - 1]) : "r"(u[W - 1]));
  }
  /* t += u over W words (the carry out is dropped) */
  __device__ __forceinline__ static void w_add(uint32_t *t, const uint32_t *u) {
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(t[0]) : "r"(u[0]));
#pragma unroll
    for (int k = 1; k < W - 1; k++)
      asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(t[k]) : "r"(u[k]));
    asm volatile("addc.u32 %0, %0, %1;" : "+r"(t[W - 1]) : "r"(u[W - 1]));
  }
  /* redc of a signed t with |t| < pR: pR added when the top bit says negative */
  __device__ __forceinline__ static spc_fp redc_signed(uint32_t *t) {
    spc_fp::wide_add_p_hi(t, (uint32_t)((int32_t)t[W - 1] >> 31));
    return spc_fp::redc(t);
  }
  /* t = -u over W words */
  __device__ __forceinline__ static void w_neg(uint32_t *t, const uint32_t *u) {
    asm volatile("sub.cc.u32 %0, 0, %1;" : "=r"(t[0]) : "r"(u[0]));
#pragma unroll
    for (int k = 1; k < W - 1; k++) asm volatile("subc.cc.u32 %0, 0, %1;" : "=r"(t[k]) : "r"(u[k]));
    asm volatile("subc.u32 %0, 0, %1;" : "=r"(t[W - 1]) : "r"(u[W - 1]));
  }
  /* The unreduced Karatsuba parts of a * b into c0w = t0 - t1 and c1w = s - t0 - t1,
   * one product at a time (one 24-word temporary besides the two accumulators). */
  __device__ __forceinline__ static void mul_wide2(uint32_t *c0w, uint32_t *c1w, const spc_fp2 &a,
                                                   const spc_fp2 &b) {
    uint32_t t[W];
    spc_fp::mul_wide(c0w, a.c0, b.c0);
    w_neg(c1w, c0w);
    spc_fp::mul_wide(t, a.c1, b.c1);
    w_sub(c0w, t);
    w_sub(c1w, t);
    spc_fp::mul_wide(t, spc_fp::add(a.c0, a.c1), spc_fp::add(b.c0, b.c1));
    w_add(c1w, t);
  }
  /* c0w -= t0 - t1 and c1w -= s - t0 - t1 for c * d, in the same way. */
  __device__ __forceinline__ static void mul_wide2_sub(uint32_t *c0w, uint32_t *c1w,
                                                       const spc_fp2 &c, const spc_fp2 &d) {
    uint32_t t[W];
    spc_fp::mul_wide(t, c.c0, d.c0);
    w_sub(c0w, t);
    w_add(c1w, t);
    spc_fp::mul_wide(t, c.c1, d.c1);
    w_add(c0w, t);
    w_add(c1w, t);
    spc_fp::mul_wide(t, spc_fp::add(c.c0, c.c1), spc_fp::add(d.c0, d.c1));
    w_sub(c1w, t);
  }
  __device__ __forceinline__ static spc_fp2 mul_inl(const spc_fp2 &a, const spc_fp2 &b) {
    uint32_t c0w[W], c1w[W];
    mul_wide2(c0w, c1w, a, b);
    spc_fp2 r;
    r.c0 = redc_signed(c0w);
    r.c1 = redc_signed(c1w);
    return r;
  }
  /* a*b - c*d: six wide products, two reductions (as Fp's mul_sub_mul). */
  __device__ __forceinline__ static spc_fp2 mul_sub_mul_inl(const spc_fp2 &a, const spc_fp2 &b,
                                                            const spc_fp2 &c, const spc_fp2 &d) {
    uint32_t c0w[W], c1w[W];
    mul_wide2(c0w, c1w, a, b);
    mul_wide2_sub(c0w, c1w, c, d);
    spc_fp2 r;
    r.c0 = redc_signed(c0w);
    r.c1 = redc_signed(c1w);
    return r;
  }
  /* As Fp's: calls, operands by value (one copy of the code serves a kernel). */
  __device__ __noinline__ static spc_fp2 mul_call(spc_fp2 a, spc_fp2 b) { return mul_inl(a, b); }
  __device__ __noinline__ static spc_fp2 mul_sub_mul_call(spc_fp2 a, spc_fp2 b, spc_fp2 c,
                                                          spc_fp2 d) {
    return mul_sub_mul_inl(a, b, c, d);
  }
  /* The lazy forms where they were measured faster: the G2 subgroup check's chains
   * (cuda/subgroup/subgroup.cuh: -8.5 % a point on the H200). */
  __device__ __forceinline__ static spc_fp2 mul_lazy(const spc_fp2 &a, const spc_fp2 &b) {
    return mul_call(a, b);
  }
  __device__ __forceinline__ static spc_fp2 mul_sub_mul_lazy(const spc_fp2 &a, const spc_fp2 &b,
                                                             const spc_fp2 &c, const spc_fp2 &d) {
    return mul_sub_mul_call(a, b, c, d);
  }
  /* Karatsuba on ff.cuh's Fp products: three calls, three reductions. The MSM's
   * accumulation keeps this form: with the lazy one its G2 kernels went from 208 to 255
   * registers and spilled around the calls, and G2 MSM 2^24 was 4-6 % slower. */
  __device__ __forceinline__ static spc_fp2 mul(const spc_fp2 &a, const spc_fp2 &b) {
    spc_fp t0 = spc_fp::mul(a.c0, b.c0);
    spc_fp t1 = spc_fp::mul(a.c1, b.c1);
    spc_fp s = spc_fp::mul(spc_fp::add(a.c0, a.c1), spc_fp::add(b.c0, b.c1));
    spc_fp2 r;
    r.c0 = spc_fp::sub(t0, t1);
    r.c1 = spc_fp::sub(spc_fp::sub(s, t0), t1);
    return r;
  }
  /* a*b - c*d (EC formulas name it for Fp's one-reduction form; here two products) */
  __device__ __forceinline__ static spc_fp2 mul_sub_mul(const spc_fp2 &a, const spc_fp2 &b,
                                                        const spc_fp2 &c, const spc_fp2 &d) {
    return sub(mul(a, b), mul(c, d));
  }
  /* (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: two Fp products. */
  __device__ __forceinline__ static spc_fp2 sqr(const spc_fp2 &a) {
    spc_fp2 r;
    spc_fp t = spc_fp::mul(a.c0, a.c1);
    r.c0 = spc_fp::mul(spc_fp::add(a.c0, a.c1), spc_fp::sub(a.c0, a.c1));
    r.c1 = spc_fp::dbl(t);
    return r;
  }
};

#endif
