#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
# msm_table_model.py [SEED] -- host model of the fixed-base (precomputed) MSM of
# cuda/msm.cu (msm_tab): the same signed digits as k_msm_digits (c-bit windows read from
# the eight 32-bit words of the scalar, a carry into the next window), the same point
# encoding (sign << 31 | copy << shift | point index), copies T_j = 2^(c j) P, windows
# grouped k at a time into one bucket set per group (window w: group w // k, copy
# w % k), batches of at most wb windows added into the group's buckets, each group
# reduced as sum (b + 1) B_b, and the group sums combined by Horner with c*k doublings.
# The group is Z_r (P_i random residues, "doubling" is *2 mod r), so every step is exact
# and the result must equal sum s_i P_i mod r. Asserts: the top window never carries
# out, digits stay within the 2^(c-1) buckets, the encoding never overflows 31 bits,
# and the sums agree, over edge scalars (0, 1, r - 1, top-window-heavy, runs of ones)
# and random ones, for every window 2..24 and several copy counts. A dev tool (python3,
# a few seconds); the GPU tests check the kernels themselves against the CPU library.
import random, sys

R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001

def words(s):
    return [(s >> (32 * k)) & 0xffffffff for k in range(8)]

def digits(s, c, nwin):
    """k_msm_digits: (|d|, negative) per window"""
    v8, mask, half, carry, out = words(s), (1 << c) - 1, 1 << (c - 1), 0, []
    for w in range(nwin):
        bit = w * c
        word, sh = bit >> 5, bit & 31
        v = 0
        if word < 8:
            v = v8[word] >> sh
            if sh + c > 32 and word + 1 < 8:
                v |= (v8[word + 1] << (32 - sh)) & 0xffffffff
        v &= mask
        d = v + carry
        if d > half:
            out.append(((1 << c) - d, 1))
            carry = 1
        else:
            out.append((d, 0))
            carry = 0
    assert carry == 0, "the top window carried out"
    return out

def shift_of(npoints):
    sl = 0
    while (1 << sl) < npoints:
        sl += 1
    return sl

def msm_tab(points, scalars, c, k, wb):
    n = len(points)
    nwin = (256 + c - 1) // c
    k = min(k, nwin)
    ngroups = (nwin + k - 1) // k
    sl = shift_of(n)
    assert k << sl <= 1 << 31, "copy index overflows the 31-bit encoding"
    table = [[(p << (c * j)) % R for p in points] for j in range(k)]  # T_j = 2^(cj) P
    dig = [digits(s, c, nwin) for s in scalars]
    nb = 1 << (c - 1)
    gsum = []
    for g in range(ngroups):
        buckets = {}
        wg0, wg1 = g * k, min(nwin, g * k + k)
        for w0 in range(wg0, wg1, wb):
            w1 = min(wg1, w0 + wb)
            batch = {}  # one sort over the batch: a run per bucket
            for w in range(w0, w1):
                for i in range(n):
                    d, neg = dig[i][w]
                    if d == 0:
                        continue
                    assert 1 <= d <= nb, "digit outside the buckets"
                    v = (neg << 31) | ((w - wg0) << sl) | i
                    assert v < 1 << 32
                    j, pidx = (v & 0x7fffffff) >> sl, v & ((1 << sl) - 1)
                    p = table[j][pidx]
                    batch[d - 1] = (batch.get(d - 1, 0) + (R - p if v >> 31 else p)) % R
            for b, acc in batch.items():  # added into the group's buckets
                buckets[b] = (buckets.get(b, 0) + acc) % R
        gsum.append(sum((b + 1) * x for b, x in buckets.items()) % R)
    total = 0
    for g in reversed(range(ngroups)):
        total = (total * pow(2, c * k, R) + gsum[g]) % R
    return total

def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    rnd = random.Random(seed)
    edges = [0, 1, 2, R - 1, R - 2, (R - 1) // 2, (R + 1) // 2, 1 << 254, (1 << 254) + 1,
             R - (1 << 200), (1 << 255) % R]
    checks = 0
    for c in range(2, 25):
        nwin = (256 + c - 1) // c
        top = c * (nwin - 1)  # first bit of the top window
        sc = list(edges)
        sc += [(R - 1) >> b << b for b in (0, top, top - 1)]  # r - 1 with low bits cleared
        if top < 254:
            sc += [((1 << (254 - top)) - 1) << top, (((1 << (255 - top)) - 1) << top) % R]
        sc += [((1 << 255) - 1) % R, int("10" * 127, 2) % R]  # runs of ones, alternating
        sc += [rnd.randrange(R) for _ in range(12)]
        lo = min(1 << top, R >> 1)
        sc += [rnd.randrange(lo, R) for _ in range(4)]  # top-window-heavy
        pts = [rnd.randrange(1, R) for _ in sc]
        want = sum(s * p for s, p in zip(sc, pts)) % R
        for k in sorted({1, 2, 3, max(1, nwin // 2), nwin - 1 if nwin > 1 else 1, nwin}):
            for wb in sorted({1, 2, k}):
                got = msm_tab(pts, sc, c, k, wb)
                assert got == want, f"c={c} k={k} wb={wb}: wrong sum"
                checks += 1
    # the engine's largest encodings: 2^27 - 1 points, copies up to 16
    assert shift_of((1 << 27) - 1) == 27 and 16 << 27 <= 1 << 31
    print(f"msm_table_model: {checks} (window, copies, batch) cases, seed {seed}: all equal")

main()
