#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
# ff_ptx_run.py -- runs the device code of cuda/ff/ff.cuh's Fp products on the host:
# nvcc compiles small kernels that call spc_fp::mul_inl, sqr_inl, mul_sub_mul_inl and
# spc_fp2::mul_inl to PTX (no GPU needed), this script turns each kernel's straight-line
# PTX into a Python function (32-bit registers, the carry flag with PTX's add.cc / sub.cc
# semantics) and compares its results with big-integer arithmetic over edge and random
# operands. ff_model.py checks the bounds argument of the carry chains; this checks the
# code nvcc actually emits for them. ptxas's translation to machine code is not covered
# (the GPU suites are). A dev tool: needs nvcc (NVCC in the environment, default nvcc),
# ~10 s; run from the repository root.
import os, random, re, subprocess, sys, tempfile

M32 = (1 << 32) - 1
P = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
R = 1 << 384
RINV = pow(R, -1, P)

KERNELS = r'''
#include <stdint.h>
#include "ff.cuh"
extern "C" __global__ void k_mul(const spc_fp *in, spc_fp *out) {
  out[0] = spc_fp::mul_inl(in[0], in[1]);
}
extern "C" __global__ void k_sqr(const spc_fp *in, spc_fp *out) { out[0] = spc_fp::sqr_inl(in[0]); }
extern "C" __global__ void k_msm(const spc_fp *in, spc_fp *out) {
  out[0] = spc_fp::mul_sub_mul_inl(in[0], in[1], in[2], in[3]);
}
extern "C" __global__ void k_fp2(const spc_fp2 *in, spc_fp2 *out) {
  out[0] = spc_fp2::mul_inl(in[0], in[1]);
}
extern "C" __global__ void k_fp2msm(const spc_fp2 *in, spc_fp2 *out) {
  out[0] = spc_fp2::mul_sub_mul_inl(in[0], in[1], in[2], in[3]);
}
'''


def compile_ptx():
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.cu")
        with open(src, "w") as f:
            f.write(KERNELS)
        out = os.path.join(d, "k.ptx")
        cmd = [os.environ.get("NVCC", "nvcc"), "-arch=sm_90", "-O3", "-std=c++17", "--ptx",
               "-I" + os.path.join(top, "cuda", "ff"), "-o", out, src]
        subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL)
        return open(out).read()


def const_arrays(ptx):
    """.const .b8 NAME[n] = {bytes} -> NAME: bytes"""
    out = {}
    for m in re.finditer(r"\.const \.align \d+ \.b8 (\w+)\[\d+\] = \{([^}]*)\}", ptx):
        out[m.group(1)] = bytes(int(x) for x in m.group(2).split(","))
    return out


def operand(tok):
    """a PTX operand as a Python expression"""
    tok = tok.strip()
    if tok.startswith("%"):
        return "v_" + tok[1:]
    if re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", tok):
        return str(int(tok, 0) & M32)
    raise ValueError("operand " + tok)


def translate(ptx, name, consts):
    """Python source of kernel NAME(mem) -> None; mem maps byte addresses of words"""
    body = re.search(r"\.entry " + name + r"\((.*?)\)\s*\{(.*?)\n\}", ptx, re.S)
    params = re.findall(r"\.param \.u64 (\w+)", body.group(1))
    lines = ["def " + name + "(mem, " + ", ".join(params) + "):", "    cf = 0"]
    emit = lines.append
    text = [re.sub(r"//.*", "", ln).strip() for ln in body.group(2).split("\n")]
    text = [ln for ln in text if ln and not ln.startswith(".") and ln not in ("{", "}")]
    for raw in " ".join(text).split(";"):
        raw = raw.strip()
        if not raw or raw == "ret":
            continue
        if raw.startswith("@") or raw.startswith("bra") or raw.endswith(":"):
            raise ValueError(name + ": control flow is not handled: " + raw)
        op, _, args = raw.partition(" ")
        a = [x.strip() for x in re.split(r",(?![^{]*\})", args)] if args else []
        d = operand(a[0]) if a and a[0].startswith("%") else None
        s = [operand(x) for x in a[1:]] if op.split(".")[0] not in ("ld", "st") else []
        if op == "ld.param.u64":
            emit(f"    {d} = {a[1].strip('[]')}")
        elif op == "cvta.to.global.u64" or op == "mov.u32" or op == "mov.b32":
            emit(f"    {d} = {s[0]}")
        elif op.startswith("ld.global") or op.startswith("st.global"):
            m = re.fullmatch(r"\[(%\w+)(?:\+(\d+))?\]", a[1] if op[0] == "l" else a[0])
            base, off = operand(m.group(1)), int(m.group(2) or 0)
            regs = a[0] if op[0] == "l" else a[1]
            regs = [operand(x) for x in regs.strip("{}").split(",")]
            for k, r in enumerate(regs):
                if op[0] == "l":
                    emit(f"    {r} = mem[{base} + {off + 4 * k}]")
                else:
                    emit(f"    mem[{base} + {off + 4 * k}] = {r}")
        elif op == "ld.const.u32":
            m = re.fullmatch(r"\[(\w+)(?:\+(\d+))?\]", a[1])
            off = int(m.group(2) or 0)
            emit(f"    {d} = {int.from_bytes(consts[m.group(1)][off:off + 4], 'little')}")
        elif re.fullmatch(r"(add|sub)c?(\.cc)?\.[us]32", op):  # sub: cf is the borrow
            sign = op[0] == "a" and "+" or "-"
            c = f" {sign} cf" if op[3] == "c" else ""
            emit(f"    _t = {s[0]} {sign} {s[1]}{c}")
            if ".cc" in op:
                emit("    cf = _t >> 32" if sign == "+" else "    cf = 1 if _t < 0 else 0")
            emit(f"    {d} = _t & {M32}")
        elif re.fullmatch(r"madc?\.(lo|hi)(\.cc)?\.u32", op):
            part = f"(({s[0]} * {s[1]}) & {M32})" if ".lo" in op else f"(({s[0]} * {s[1]}) >> 32)"
            c = " + cf" if op.startswith("madc") else ""
            emit(f"    _t = {part} + {s[2]}{c}")
            if ".cc" in op:
                emit("    cf = _t >> 32")
            emit(f"    {d} = _t & {M32}")
        elif op in ("mul.lo.u32", "mul.lo.s32"):
            emit(f"    {d} = ({s[0]} * {s[1]}) & {M32}")
        elif op == "mul.hi.u32":
            emit(f"    {d} = ({s[0]} * {s[1]}) >> 32")
        elif op in ("and.b32", "or.b32", "xor.b32"):
            sym = {"and": "&", "or": "|", "xor": "^"}[op[:op.index(".")]]
            emit(f"    {d} = {s[0]} {sym} {s[1]}")
        elif op == "not.b32":
            emit(f"    {d} = {s[0]} ^ {M32}")
        elif op == "neg.s32":
            emit(f"    {d} = (-{s[0]}) & {M32}")
        elif op == "shl.b32":
            emit(f"    {d} = ({s[0]} << {s[1]}) & {M32} if {s[1]} < 32 else 0")
        elif op == "shr.u32":
            emit(f"    {d} = {s[0]} >> {s[1]}")
        elif op == "shr.s32":
            emit(f"    {d} = ((({s[0]} ^ 0x80000000) - 0x80000000) >> min({s[1]}, 31)) & {M32}")
        elif op == "shf.l.wrap.b32":  # d = hi bits of (b:a) << (c & 31)
            emit(f"    {d} = (((({s[1]} << 32) | {s[0]}) << ({s[2]} & 31)) >> 32) & {M32}")
        elif op == "setp.eq.s32" or op == "setp.ne.s32":
            emit(f"    {d} = {s[0]} {'==' if 'eq' in op else '!='} {s[1]}")
        elif op == "selp.b32":
            emit(f"    {d} = {s[0]} if {s[2]} else {s[1]}")
        else:
            raise ValueError(name + ": instruction not handled: " + raw)
    return "\n".join(lines) + "\n"


def load():
    ptx = compile_ptx()
    consts = const_arrays(ptx)
    env = {}
    for name in re.findall(r"\.entry (\w+)\(", ptx):
        exec(translate(ptx, name, consts), env)
    return env


def run(fn, ins, nout):
    """ins: list of 384-bit values, laid out as 12 words each at address 0; outputs at 1 << 20"""
    mem = {}
    for i, v in enumerate(ins):
        for k in range(12):
            mem[48 * i + 4 * k] = (v >> (32 * k)) & M32
    fn(mem, 0, 1 << 20)
    return [sum(mem[(1 << 20) + 48 * i + 4 * k] << (32 * k) for k in range(12)) for i in range(nout)]


def operands(rng, n):
    edge = [0, 1, 2, P - 1, P - 2, (P - 1) // 2, (P + 1) // 2, R % P, P - (R % P),
            (1 << 380) - 1, 1 << 380, P - (1 << 192), (1 << 192) - 1, 1 << 192, (1 << 192) + 1]
    # all-ones low halves under the largest high halves, and all-ones limbs
    edge += [((1 << 189) - 1) << 192 | ((1 << 192) - 1), ((1 << 188) << 192) | ((1 << 192) - 1)]
    edge += [sum(pat << (32 * k) for k in range(12)) % P for pat in (0xffffffff, 0x80000000)]
    edge = [e % P for e in edge]
    return edge, [rng.randrange(P) for _ in range(n)]


def main():
    env = load()
    rng = random.Random(1)
    edge, rnd = operands(rng, 1500)
    fails = 0
    pairs = [(x, y) for x in edge for y in edge] + list(zip(rnd, rnd[1:] + rnd[:1]))
    for x, y in pairs:
        fails += run(env["k_mul"], [x, y], 1)[0] != x * y * RINV % P
    for x in edge + rnd:
        fails += run(env["k_sqr"], [x], 1)[0] != x * x * RINV % P
    quads = [(x, y, z, w) for x in edge[:8] for y in edge[:8] for z in (0, 1, P - 1) for w in (0, P - 1)]
    quads += [tuple(rng.randrange(P) for _ in range(4)) for _ in range(1500)]
    for q in quads:
        fails += run(env["k_msm"], list(q), 1)[0] != (q[0] * q[1] - q[2] * q[3]) * RINV % P
    # Fp2 = Fp[u]/(u^2 + 1): (a0 + a1 u)(b0 + b1 u) = a0 b0 - a1 b1 + (a0 b1 + a1 b0) u
    f2 = lambda a, b: ((a[0] * b[0] - a[1] * b[1]) * RINV % P, (a[0] * b[1] + a[1] * b[0]) * RINV % P)
    octs = [tuple(rng.choice(edge) if rng.random() < 0.3 else rng.randrange(P) for _ in range(8))
            for _ in range(800)]
    for o in octs:
        got = run(env["k_fp2"], list(o[:4]), 2)
        fails += tuple(got) != f2(o[0:2], o[2:4])
        got = run(env["k_fp2msm"], list(o), 2)
        ab, cd = f2(o[0:2], o[2:4]), f2(o[4:6], o[6:8])
        fails += tuple(got) != ((ab[0] - cd[0]) % P, (ab[1] - cd[1]) % P)
    total = len(pairs) + len(edge) + len(rnd) + len(quads) + 2 * len(octs)
    print(f"ff_ptx_run: {total} products "
          f"(mul {len(pairs)}, sqr {len(edge) + len(rnd)}, mul_sub_mul {len(quads)}, "
          f"fp2 mul and mul_sub_mul {len(octs)} each), {fails} wrong")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
