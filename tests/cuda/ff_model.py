#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
# ff_model.py [SEED] -- host model of the carry logic of spc_mont::sqr_inl, redc and
# mul_sub_mul_inl (mul_wide, the difference, the + p 2^(32N) fix-up) in cuda/ff/ff.cuh: the same instruction sequence (mad.lo/madc.hi chains, add/addc, the
# redc rows whose shift rides in the m * p chain) on 32-bit words with an explicit
# carry flag. It asserts that every carry the device code drops is zero, that no
# chain's carry word overflows, and that the results equal a^2 / 2^(32N) mod p, for
# Fp (N = 12) and Fr (N = 8), over edge and random operands. redc is also run on
# random inputs over its whole range (t < p * 2^(32N)).
# The GPU tests compare the device results with the CPU library; this checks the
# bounds argument of the chains, which random operands alone could miss. A dev
# tool (python3, ~20 s): run it after changing those chains (cuda/DESIGN.md).
import random, sys
M32 = (1 << 32) - 1
class CC:
    v = 0
def madlo(a, b, c, cin, setcc):
    s = ((a * b) & M32) + c + (CC.v if cin else 0)
    if setcc: CC.v = s >> 32
    else: assert s >> 32 == 0, "dropped carry (lo)"
    return s & M32
def madhi(a, b, c, cin, setcc):
    s = ((a * b) >> 32) + c + (CC.v if cin else 0)
    if setcc: CC.v = s >> 32
    else: assert s >> 32 == 0, "dropped carry (hi)"
    return s & M32
def add(a, b, cin, setcc):
    s = a + b + (CC.v if cin else 0)
    if setcc: CC.v = s >> 32
    else: assert s >> 32 == 0, "dropped carry (add)"
    return s & M32

def wide_chain(w, N, a, bi, i, j0):
    """ff.cuh wide_chain: w[i+j], w[i+j+1] += a[j] * bi, j = j0, j0 + 2, ... < N"""
    if j0 >= N: return
    w[i + j0] = madlo(bi, a[j0], w[i + j0], False, True)
    w[i + j0 + 1] = madhi(bi, a[j0], w[i + j0 + 1], True, True)
    j = j0 + 2
    while j < N:
        w[i + j] = madlo(bi, a[j], w[i + j], True, True)
        w[i + j + 1] = madhi(bi, a[j], w[i + j + 1], True, True)
        j += 2
    if i + j < 2 * N:
        assert w[i + j] <= 1, "carry word above 1 before the add"
        w[i + j] = add(w[i + j], 0, True, False)
    else:
        assert CC.v == 0, "dropped chain carry"

def model(N, P, M0, av):
    a = [(av >> (32 * i)) & M32 for i in range(N)]
    pm = [(P >> (32 * i)) & M32 for i in range(N)]
    e = [0] * (2 * N); o = [0] * (2 * N)
    for i in range(N - 1):
        wide_chain(o, N, a, a[i], i, i + 1)
        wide_chain(e, N, a, a[i], i, i + 2)
    e[0] = add(e[0], o[0], False, True)
    for k in range(1, 2 * N - 1): e[k] = add(e[k], o[k], True, True)
    e[2 * N - 1] = add(e[2 * N - 1], o[2 * N - 1], True, False)
    t = [0] * (2 * N)
    for k in range(2 * N - 1, 0, -1):
        t[k] = ((((e[k] << 32) | e[k - 1]) << 1) >> 32) & M32
    t[0] = (e[0] << 1) & M32
    t[0] = madlo(a[0], a[0], t[0], False, True)
    t[1] = madhi(a[0], a[0], t[1], True, True)
    for i in range(1, N - 1):
        t[2 * i] = madlo(a[i], a[i], t[2 * i], True, True)
        t[2 * i + 1] = madhi(a[i], a[i], t[2 * i + 1], True, True)
    t[2 * N - 2] = madlo(a[N - 1], a[N - 1], t[2 * N - 2], True, True)
    t[2 * N - 1] = madhi(a[N - 1], a[N - 1], t[2 * N - 1], True, False)
    assert sum(t[k] << (32 * k) for k in range(2 * N)) == av * av
    return redc(N, P, M0, pm, t)

def mul_n(acc, aa, bi):  # acc[j], acc[j+1] = aa[j]*bi, even j
    for j in range(0, len(acc), 2):
        acc[j] = (aa[j] * bi) & M32; acc[j + 1] = (aa[j] * bi) >> 32
def cmad_n(acc, aa, bi, N):
    acc[0] = madlo(aa[0], bi, acc[0], False, True)
    acc[1] = madhi(aa[0], bi, acc[1], True, True)
    for j in range(2, N, 2):
        acc[j] = madlo(aa[j], bi, acc[j], True, True)
        acc[j + 1] = madhi(aa[j], bi, acc[j + 1], True, True)

def redc(N, P, M0, pm, t):
    x = t[:N]; y = [0] * N
    m = (x[0] * M0) & M32
    pm1 = pm[1:] + [0]
    mul_n(y, pm1, m)
    cmad_n(x, pm, m, N)
    y[N - 1] = add(y[N - 1], 0, True, False)
    def row(al, off):
        al[0] = add(al[0], off[1], False, True)
        mm = (al[0] * M0) & M32          # mul.lo in the same asm: CC untouched
        # madc_n_rshift(off, pm + 1, mm): off[j] = off[j+2] + pm[j+1]*mm (+CC)
        for j in range(0, N - 2, 2):
            lo = madlo(pm1[j], mm, off[j + 2], True, True)
            hi = madhi(pm1[j], mm, off[j + 3], True, True)
            off[j], off[j + 1] = lo, hi
        off[N - 2] = madlo(pm1[N - 2], mm, 0, True, True)
        off[N - 1] = madhi(pm1[N - 2], mm, 0, True, False)
        cmad_n(al, pm, mm, N)
        off[N - 1] = add(off[N - 1], 0, True, False)
        assert al[0] == 0
    for r in range(1, N):
        if r & 1: row(y, x)
        else: row(x, y)
    x[0] = add(x[0], y[1], False, True)
    for j in range(1, N - 1): x[j] = add(x[j], y[j + 1], True, True)
    x[N - 1] = add(x[N - 1], 0, True, False)
    x[0] = add(x[0], t[N], False, True)
    for j in range(1, N - 1): x[j] = add(x[j], t[N + j], True, True)
    x[N - 1] = add(x[N - 1], t[2 * N - 1], True, False)
    v = sum(x[k] << (32 * k) for k in range(N))
    assert v < 2 * P, "redc result not below 2p"
    return v - P if v >= P else v

FP = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
FR = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
for name, P, N in (("Fp", FP, 12), ("Fr", FR, 8)):
    M0 = (-pow(P, -1, 1 << 32)) % (1 << 32)
    R = 1 << (32 * N)
    Rinv = pow(R, -1, P)
    edge = [0, 1, 2, P - 1, P - 2, (P - 1) // 2, (P + 1) // 2, R % P, (R * R) % P, P - (R % P)]
    edge += [(1 << k) % P for k in range(0, 32 * N, 13)]
    edge += [P - (1 << k) for k in range(0, 32 * N - 3, 29) if (1 << k) < P]
    # limbs of all ones / all zeros patterns below p
    for pat in (0xffffffff, 0x80000000, 0x7fffffff, 0x00000001):
        v = sum(pat << (32 * k) for k in range(N)) % P
        edge.append(v)
    count = 0
    for av in edge + [random.randrange(P) for _ in range(40000)]:
        got = model(N, P, M0, av)
        assert got == av * av * Rinv % P, (name, hex(av))
        count += 1
    print(f"{name}: {count} squarings match a^2/R mod p; no dropped carry was nonzero")

# ---- redc over its whole input range: any t < p * 2^(32N), not only squares --------
for name, P, N in (("Fp", FP, 12), ("Fr", FR, 8)):
    M0 = (-pow(P, -1, 1 << 32)) % (1 << 32)
    R = 1 << (32 * N); Rinv = pow(R, -1, P)
    pm = [(P >> (32 * i)) & M32 for i in range(N)]
    ts = [0, 1, P * R - 1, P * R - R, R - 1, (P - 1) * R] + [random.randrange(P * R) for _ in range(30000)]
    for tv in ts:
        t = [(tv >> (32 * k)) & M32 for k in range(2 * N)]
        assert redc(N, P, M0, pm, t) == tv * Rinv % P, (name, hex(tv))
    print(f"{name}: {len(ts)} redc(t), t < p 2^(32N), match t/R mod p")

# ---- mul_sub_mul: (a b - c d) / R mod p with one redc ---------------------------------
def mul_wide(N, a, b):
    t = [0] * (2 * N); o = [0] * (2 * N)
    for i in range(N):
        wide_chain(o if i & 1 else t, N, a, b[i], i, 0)
        wide_chain(t if i & 1 else o, N, a, b[i], i, 1)
    t[0] = add(t[0], o[0], False, True)
    for k in range(1, 2 * N - 1): t[k] = add(t[k], o[k], True, True)
    t[2 * N - 1] = add(t[2 * N - 1], o[2 * N - 1], True, False)
    return t

def sub(a, b, bin_, setcc):  # sub.cc / subc.cc: CC holds the borrow
    d = a - b - (CC.v if bin_ else 0)
    if setcc: CC.v = 1 if d < 0 else 0
    return d & M32

def mul_sub_mul(N, P, M0, pm, av, bv, cv, dv):
    limbs = lambda v: [(v >> (32 * i)) & M32 for i in range(N)]
    t = mul_wide(N, limbs(av), limbs(bv))
    assert sum(t[k] << (32 * k) for k in range(2 * N)) == av * bv
    u = mul_wide(N, limbs(cv), limbs(dv))
    t[0] = sub(t[0], u[0], False, True)
    for k in range(1, 2 * N): t[k] = sub(t[k], u[k], True, True)
    brw = M32 if CC.v else 0
    t[N] = add(t[N], pm[0] & brw, False, True)
    for k in range(1, N - 1): t[N + k] = add(t[N + k], pm[k] & brw, True, True)
    s = t[2 * N - 1] + (pm[N - 1] & brw) + CC.v   # addc.u32: the carry out is dropped,
    assert (s >> 32) == (1 if brw else 0), "top carry does not cancel the borrow"
    t[2 * N - 1] = s & M32
    tv = sum(t[k] << (32 * k) for k in range(2 * N))
    assert tv < P << (32 * N), "redc input not below p R"
    return redc(N, P, M0, pm, t)

for name, P, N in (("Fp", FP, 12), ("Fr", FR, 8)):
    M0 = (-pow(P, -1, 1 << 32)) % (1 << 32)
    R = 1 << (32 * N); Rinv = pow(R, -1, P)
    pm = [(P >> (32 * i)) & M32 for i in range(N)]
    edge = [0, 1, 2, P - 1, P - 2, (P - 1) // 2, R % P, P - (R % P)]
    edge += [sum(pat << (32 * k) for k in range(N)) % P for pat in (0xffffffff, 0x80000000)]
    quads = [(x, y, z, w) for x in edge[:6] for y in edge[:6] for z in (0, 1, P - 1) for w in (0, P - 1)]
    quads += [tuple(random.randrange(P) for _ in range(4)) for _ in range(30000)]
    quads += [(random.randrange(P), random.randrange(P), P - 1, P - 1) for _ in range(2000)]
    quads += [(0, 0, random.randrange(P), random.randrange(P)) for _ in range(2000)]
    for q in quads:
        got = mul_sub_mul(N, P, M0, pm, *q)
        assert got == (q[0] * q[1] - q[2] * q[3]) * Rinv % P, (name, [hex(v) for v in q])
    print(f"{name}: {len(quads)} mul_sub_mul match (a b - c d)/R mod p; no dropped carry was nonzero")
