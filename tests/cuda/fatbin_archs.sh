#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# fatbin_archs.sh -- the built module carries device code for exactly the architectures
# configure chose (--with-cuda-arch; default: every one the toolkit lists from sm_80 up)
# and PTX of the highest, in every CUDA object it links (issue 25 item 1). Read with
# tests/cuda/fatbin_archs (the .nv_fatbin section of sealprov.so); where the toolkit has
# cuobjdump, its --list-elf / --list-ptx must say the same. No GPU needed.
set -u
fail() { echo "FAIL: fatbin_archs.sh: $*"; exit 1; }
so=${SEALPROV_PLUGIN:-$top_builddir/plugin/.libs/sealprov.so}
reader=$top_builddir/tests/cuda/fatbin_archs
[ -n "${SP_CUDA_ARCHS:-}" ] || { echo "SKIP: not a CUDA build (SP_CUDA_ARCHS is empty)"; exit 77; }
[ -f "$so" ] || fail "no module at $so"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

"$reader" "$so" > "$tmp/entries" || fail "fatbin_archs could not read $so"
# what configure chose: sm_NN per architecture ("90a" is a binary of 90), PTX of one
echo "$SP_CUDA_ARCHS" | tr ',' '\n' | sed 's/[af]$//; s/^/sm_/' | sort -u > "$tmp/want_elf"
want_ptx=
[ "${SP_CUDA_PTX_ARCH:-0}" != 0 ] && want_ptx=compute_$SP_CUDA_PTX_ARCH
# the default (--with-cuda-arch=all) is every architecture this nvcc lists from sm_80 up
if [ "${SP_CUDA_ARCH_REQUEST:-}" = all ]; then
  nvcc=${SP_CUDA_PREFIX:+$SP_CUDA_PREFIX/bin/}nvcc
  "$nvcc" --list-gpu-arch > "$tmp/nvcc_archs" 2>/dev/null || fail "$nvcc --list-gpu-arch failed"
  toolkit=$(sed -n 's/^compute_\([0-9]*\)$/\1/p' "$tmp/nvcc_archs" | awk '$1 >= 80' | sort -n | tr '\n' ',' | sed 's/,$//')
  [ "$toolkit" = "$SP_CUDA_ARCHS" ] \
    || fail "configured with the default (all): built for $SP_CUDA_ARCHS, but $nvcc lists $toolkit from 80 up"
  echo "default build: the toolkit's list from sm_80 up ($toolkit)"
fi
echo "module: $so"
echo "configure: --with-cuda-arch=${SP_CUDA_ARCH_REQUEST:-?}: $SP_CUDA_ARCHS, PTX ${want_ptx:-none}"

# every container (one per CUDA object of the module) has every binary and nothing else
containers=$(awk '{ print $1 }' "$tmp/entries" | sort -un)
n=0
for c in $containers; do
  n=$((n + 1))
  awk -v c="$c" '$1 == c && $2 == "elf" { print $3 }' "$tmp/entries" | sort -u > "$tmp/got"
  cmp -s "$tmp/got" "$tmp/want_elf" \
    || fail "container $c has binaries for $(tr '\n' ' ' < "$tmp/got")but configure chose $(tr '\n' ' ' < "$tmp/want_elf")"
  ptx=$(awk -v c="$c" '$1 == c && $2 == "ptx" { print $3 }' "$tmp/entries" | sort -u | tr '\n' ' ')
  [ "$ptx" = "${want_ptx:+$want_ptx }" ] || fail "container $c has PTX '${ptx}', want '${want_ptx}'"
done
# the module's .cu files (cuda/local.mk): one container each at least
cu=$(grep -cE '^[[:space:]]+cuda/[^ ]+\.cu( \\)?$' "$top_srcdir/cuda/local.mk")
[ "$n" -ge "$cu" ] || fail "$n containers, but the module links $cu CUDA objects"
awk '$2 != "elf" && $2 != "ptx"' "$tmp/entries" | grep -q . && fail "entries of unknown kinds: $(awk '$2 != "elf" && $2 != "ptx"' "$tmp/entries" | head -3)"
echo "read: $n containers, each with $(tr '\n' ' ' < "$tmp/want_elf")${want_ptx:+and $want_ptx}"

# cuobjdump, where the toolkit has it (the pip-wheel toolkit of CI has not)
cuobjdump=
for d in "${SP_CUDA_PREFIX:-}/bin" /usr/local/cuda/bin; do
  [ -x "$d/cuobjdump" ] && { cuobjdump=$d/cuobjdump; break; }
done
[ -n "$cuobjdump" ] || cuobjdump=$(command -v cuobjdump 2>/dev/null || true)
if [ -n "$cuobjdump" ]; then
  "$cuobjdump" --list-elf "$so" > "$tmp/cuo.elf" 2>&1 || fail "$cuobjdump --list-elf failed: $(cat "$tmp/cuo.elf")"
  "$cuobjdump" --list-ptx "$so" > "$tmp/cuo.ptx" 2>&1 || true
  grep -o 'sm_[0-9]*[af]\?' "$tmp/cuo.elf" | sed 's/[af]$//' | sort -u > "$tmp/cuo_elf"
  cmp -s "$tmp/cuo_elf" "$tmp/want_elf" \
    || fail "cuobjdump --list-elf lists $(tr '\n' ' ' < "$tmp/cuo_elf")but configure chose $(tr '\n' ' ' < "$tmp/want_elf")"
  [ "$(grep -c 'ELF file' "$tmp/cuo.elf")" = "$(grep -c ' elf ' "$tmp/entries")" ] \
    || fail "cuobjdump counts $(grep -c 'ELF file' "$tmp/cuo.elf") binaries, the reader $(grep -c ' elf ' "$tmp/entries")"
  got=$(grep -o 'sm_[0-9]*' "$tmp/cuo.ptx" | sort -u | sed 's/^sm_/compute_/' | tr '\n' ' ')
  [ "$got" = "${want_ptx:+$want_ptx }" ] || fail "cuobjdump --list-ptx lists '$got', want '$want_ptx'"
  echo "cuobjdump ($cuobjdump) agrees"
else
  echo "cuobjdump: not in this CUDA installation; the reader's list stands alone"
fi
echo "PASS: fatbin_archs.sh"
