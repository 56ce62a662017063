#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
# msm_affine_model.py [LOG_N [C]] -- host model of batch-affine bucket accumulation for
# the G1 MSM, against today's XYZZ accumulation (docs/PERFORMANCE.md, "Decisions": the
# verdict). Nothing here runs on a GPU: it counts. Wide multiplies (IMAD.WIDE, the
# FMA-heavy pipe that bounds the accumulation kernel, by ncu) per accumulated point, from
# the SASS counts of the Fp calls (product 277, squaring 208, one-reduction a*b - c*d 417,
# IMAD.MOV argument moves ~294 per mixed addition); a Fermat inversion's exact
# square-and-multiply count for p - 2 (4-bit fixed window); and, by simulating the
# sorted runs of one window (uniform scalars: bucket sizes as the digit kernel makes
# them), the rounds of pairwise affine additions inside runs, the threads each round
# has, and the bytes each round moves.
import random, sys

P = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
MUL, SQR, MSM2 = 277, 208, 417          # IMAD.WIDE per call (cuobjdump -sass of msm.cu)
MOV_PER_CALL = 294 / 9                  # IMAD.MOV per product call (9 calls per mixed addition)

def fermat_cost(w=4):
    e = P - 2
    bits = e.bit_length()
    sq = bits - 1
    muls = (1 << w) - 2                  # table of a^1..a^(2^w - 1)
    for i in range(0, bits, w):
        if (e >> i) & ((1 << w) - 1):
            muls += 1
    return sq * SQR + muls * MUL, sq, muls

def xyzz_madd():
    # u2, s2, ppp, qq, zz3, zzz3 products; pp, rr^2 squarings; y3 as a*b - c*d
    wide = 6 * MUL + 2 * SQR + MSM2
    return wide, wide + 9 * MOV_PER_CALL

def affine_add(K, inv_wide):
    # lambda = dy * inv, lambda^2, y3 = lambda (x1 - x3) - y1; the batch's prefix product
    # and the two backward products; the inversion shared by the K additions
    own = 3 * MUL + SQR
    batch = 3 * MUL
    wide = own + batch + inv_wide / K
    return wide, wide + 6 * MOV_PER_CALL

def runs(n, c, rnd):
    """bucket run lengths of one window of n uniform signed c-bit digits"""
    nb = 1 << (c - 1)
    cnt = [0] * (nb + 1)
    half = nb
    for _ in range(n):
        v = rnd.getrandbits(c)
        d = v if v <= half else (1 << c) - v
        cnt[d] += 1
    return [x for x in cnt[1:] if x]

def rounds(lens):
    """pairwise rounds inside runs: additions, elements in and out per round"""
    out = []
    cur = list(lens)
    while any(x > 1 for x in cur):
        adds = sum(x // 2 for x in cur)
        ins = sum(cur)
        cur = [x - x // 2 for x in cur]
        out.append((adds, ins, sum(cur)))
    return out

def main():
    lg = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    c = int(sys.argv[2]) if len(sys.argv) > 2 else 22
    scale = 1  # simulate 2^lg points of one window at the real bucket count
    rnd = random.Random(1)
    inv, sq, mu = fermat_cost()
    xw, xall = xyzz_madd()
    print(f"Fermat inversion in Fp: {sq} squarings + {mu} products = {inv} IMAD.WIDE "
          f"(= {inv / MUL:.0f} products)")
    print(f"XYZZ mixed addition (today): {xw} IMAD.WIDE, ~{xall:.0f} with argument moves")
    print("batch-affine addition, IMAD.WIDE (with moves) per addition by batch size K and inversion cost:")
    for name, iw in (("Fermat", inv), ("fast inversion ~45 products", 45 * MUL)):
        row = []
        for K in (8, 16, 32, 64, 128, 256, 1024):
            w, a = affine_add(K, iw)
            row.append(f"K={K}: {w:.0f} ({a:.0f}, x{xall / a:.2f})")
        print(f"  {name}: " + ", ".join(row))
    n = 1 << lg
    lens = runs(n, c, rnd)
    r = rounds(lens)
    tot = sum(a for a, _, _ in r)
    print(f"one window, 2^{lg} points, c = {c}: {len(lens)} non-empty buckets of {1 << (c - 1)}, "
          f"mean run {n / len(lens):.1f}, longest {max(lens)}; {len(r)} rounds, "
          f"{tot} affine additions (n - buckets = {n - len(lens)})")
    # bytes: a round gathers its inputs (96 B each; round 1 by point index: random),
    # writes its outputs (96 B), and, with the batch's prefix products in global memory
    # (K too large for registers), writes and reads 48 B per addition; the backward pass
    # reads both points of a pair again (192 B)
    byt = 0
    for i, (adds, ins, outs) in enumerate(r):
        byt += ins * 96 + outs * 96 + adds * (48 + 48 + 192) + ins * 8
    xyzz_bytes = n * (96 + 8) + len(lens) * 192
    print(f"  bytes per window: batch-affine rounds {byt / 1e9:.2f} GB, XYZZ {xyzz_bytes / 1e9:.2f} GB "
          f"({byt / n:.0f} against {xyzz_bytes / n:.0f} B per point)")
    print("  per round (additions, threads at K = 32 and K = 256):")
    for i, (adds, ins, outs) in enumerate(r):
        print(f"    round {i + 1}: {adds} additions, {ins} in, {outs} out; "
              f"threads {adds // 32} (K=32), {adds // 256} (K=256)")

main()
