#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
# dev/sass-count.py CUBIN [REGEX] [--g1-add] [--totals] -- counts the machine
# instructions of an sm_90 cubin by class, per function, without cuobjdump or nvdisasm
# (the development machine's toolkit has neither). What it is for: reading what a change
# to the kernels or the field arithmetic does to the machine code (wide multiplies,
# argument moves, carry additions on the multiplier pipe, local-memory spills) before
# anyone measures it on a GPU (cuda/DESIGN.md, "Working on the kernels"). Each 128-bit
# instruction's opcode field (bits 0-8) and, for IMAD, its operands tell IMAD.WIDE,
# IMAD.HI, IMAD.X (the extended add, bit 74), IMAD.MOV (both factors RZ) and the other
# IMADs apart. Functions come from the symbol table, so a kernel's callees (the
# __noinline__ Fp products) are counted on their own and the kernel's count is its own
# code. `fma` sums the IMAD forms: the multiply pipe's instructions. Make a cubin with
#   nvcc -gencode arch=compute_90,code=sm_90 -O3 -std=c++17 -cubin (cuda/local.mk's -I
#   and -D flags) cuda/msm/msm.cu
# --g1-add: per G1 mixed addition, the G1 accumulation kernel's own code plus 6 products,
#   2 squares and 1 a*b - c*d (static counts: the kernel's rare paths are in its own code).
# --totals: the whole cubin's counts, to check against `cuobjdump -sass CUBIN | grep -c`
#   where a toolkit has cuobjdump (the opcodes were read from ptxas's output and checked
#   that way on the GPU machine).
import collections, re, struct, subprocess, sys

OPS = {0x002: "MOV", 0x007: "SEL", 0x00c: "ISETP", 0x010: "IADD3", 0x012: "LOP3",
       0x019: "SHF", 0x024: "IMAD", 0x025: "IMAD.WIDE", 0x027: "IMAD.HI", 0x183: "LDL",
       0x187: "STL"}
KEYS = ["total", "fma", "IMAD.WIDE", "IMAD.HI", "IMAD", "IMAD.X", "IMAD.MOV", "MOV", "IADD3",
        "LOP3", "SEL", "SHF", "LDL", "STL"]


def functions(path):
    """(name, code) of every function symbol; a kernel's span stops at its first callee"""
    d = open(path, "rb").read()
    if d[:4] != b"\x7fELF" or d[4] != 2:
        sys.exit(path + ": not a 64-bit ELF cubin")
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
    shs = [struct.unpack_from("<IIQQQQ", d, shoff + i * shentsize) for i in range(shnum)]
    cstr = lambda off, i: d[off + i:d.index(b"\0", off + i)].decode()
    names = [cstr(shs[shstrndx][4], s[0]) for s in shs]
    sym, st = shs[names.index(".symtab")], shs[names.index(".strtab")]
    syms = []
    for k in range(0, sym[5], 24):
        nm, info, _, shndx, value, size = struct.unpack_from("<IBBHQQ", d, sym[4] + k)
        if info & 0xf == 2 and size and names[shndx].startswith(".text."):
            syms.append((shndx, value, size, cstr(st[4], nm)))
    for shndx, value, size, fn in syms:
        later = [v for s2, v, _, _ in syms if s2 == shndx and v > value]
        if later:
            size = min(size, min(later) - value)
        off = shs[shndx][4] + value
        yield fn, d[off:off + size]


def classify(lo, hi):
    op, form = lo & 0x1ff, (lo >> 9) & 7
    name = OPS.get(op, "other")
    if op == 0x024:
        ra, rb = (lo >> 24) & 0xff, ((lo >> 32) & 0xff) if form == 1 else hi & 0xff
        if (hi >> 10) & 1:
            name = "IMAD.X"
        elif ra == 0xff and rb == 0xff:
            name = "IMAD.MOV"
    return name


def count(code):
    c = collections.Counter()
    for i in range(0, len(code), 16):
        lo, hi = struct.unpack_from("<QQ", code, i)
        name = classify(lo, hi)
        c[name] += 1
        c["total"] += 1
        c["fma"] += name.startswith("IMAD")
    return c


def demangle(names):
    """readable names; a callee's symbol is $KERNEL$CALLEE: CALLEE (in KERNEL)"""
    parts = [n[1:].split("$", 1) if n.startswith("$") and n.count("$") >= 2 else [n] for n in names]
    flat = [x for p in parts for x in p]
    try:
        out = subprocess.run(["c++filt"], input="\n".join(flat), capture_output=True, text=True)
        dem = out.stdout.split("\n")[:len(flat)]
    except OSError:
        dem = flat
    it = iter(dem)
    res = []
    for p in parts:
        k = next(it)
        res.append(k if len(p) == 1 else next(it) + " (in " + k.split("(")[0] + ")")
    return res


def row(label, c):
    return f"{label[:70]:70}" + "".join(f"{c[k]:>10}" for k in KEYS)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        sys.exit(__doc__ or "usage: dev/sass-count.py CUBIN [REGEX] [--g1-add] [--totals]")
    funcs = list(functions(args[0]))
    pat = re.compile(args[1]) if len(args) > 1 else None
    dem = demangle([f for f, _ in funcs])
    print(f"{'function':70}" + "".join(f"{k:>10}" for k in KEYS))
    tot = collections.Counter()
    for (fn, code), dn in zip(funcs, dem):
        c = count(code)
        tot.update(c)
        if pat is None or pat.search(dn) or pat.search(fn):
            print(row(dn, c))
    if "--totals" in sys.argv:
        print(row("(whole cubin)", tot))
    if "--g1-add" in sys.argv:
        kern = [f for f, _ in funcs if re.match(r"_Z12k_msm_accum0I8spc_montI10spc_fp_cfgELb0", f)]
        if not kern:
            sys.exit("no G1 accumulation kernel in " + args[0])
        add = collections.Counter(count(dict(funcs)[kern[0]]))
        for tag, times in (("8mul_call", 6), ("8sqr_call", 2), ("16mul_sub_mul_call", 1)):
            callee = [code for f, code in funcs if f.startswith("$" + kern[0] + "$") and tag in f]
            if not callee:
                sys.exit("no " + tag + " in the G1 accumulation kernel")
            for k, v in count(callee[0]).items():
                add[k] += times * v
        print(row("per G1 mixed addition (kernel + 6 mul + 2 sqr + mul_sub_mul)", add))


if __name__ == "__main__":
    main()
