#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# dev/fp-ab.sh -- on a machine with one NVIDIA GPU: the same-call A/B of the two Fp
# product forms of cuda/ff/ff.cuh: A, the default (CIOS), against K, one Karatsuba level
# with a separate reduction (-DSP_FP_KARATSUBA), which every Fp product of the kernels
# takes (G1 and G2 accumulation, batch additions, subgroup checks, the load's checks).
# From the repository root, with .dist/ and .deb/ carried (dev/device-build.sh says how
# to make them):
#   sh dev/fp-ab.sh
# Steps, each with a time limit, within FP_BUDGET_S (default 460) seconds in all:
#   1. builds the tarball twice at once (dev/device-build.sh): A in $WORK_A (default
#      /tmp/sp-fpa), K with NVCCFLAGS=-DSP_FP_KARATSUBA in $WORK_K (/tmp/sp-fpk);
#   2. K: test_cuda_kernels --full (fields, curves, MSM, batch additions against the CPU);
#   3. A and K alternating, twice: `sealprov bench gpu --json --msm-g1 24,26 --msm-g2 24
#      --ntt none --partition none --repeat 5 --precompute off,on`, then
#      `test_cuda_checks --only=subgroup --sg-bench` (the subgroup kernels' verdicts on
#      the cofactor cases, and the checker's rate on 2^22 G1 and 2^20 G2 points);
#   4. K: test_cuda_engine --full (every proof byte-equal to the CPU engine's), when the
#      budget leaves room;
#   5. when the toolkit has cuobjdump: each build's IMAD.WIDE / IMAD.MOV totals by
#      cuobjdump against dev/sass-count.py's, and the per G1 mixed addition counts.
# Logs to $OUT (default /tmp/fp-ab-out); the table of medians is printed last (and in
# summary.txt). Exit 77 when no GPU is visible, 1 when a check failed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/fp-ab-out}
budget=${FP_BUDGET_S:-460}
mkdir -p "$out" || exit 1
cd "$top" || exit 1
log=$out/run.log
: >"$log"
say() { echo "$*" | tee -a "$log"; }
t_start=$(date +%s)
elapsed() { echo $(($(date +%s) - t_start)); }
fails=0

if ! nvidia-smi -L >/dev/null 2>&1; then
  say "fp-ab: no NVIDIA GPU visible (nvidia-smi -L failed): nothing measured"
  exit 77
fi
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.used --format=csv 2>&1
  nproc; uname -r; } >>"$log" 2>&1

# step NAME LIMIT FILE CMD...: CMD with a time limit cut to the budget left, output to FILE
step() {
  name=$1; lim=$2; file=$3; shift 3
  left=$((budget - $(elapsed)))
  if [ "$left" -lt 10 ]; then say "== $name: skipped (budget)"; return 124; fi
  [ "$lim" -gt "$left" ] && lim=$left
  say "== $name (limit ${lim}s, at $(elapsed)s)"
  timeout -k 5 "$lim" "$@" >>"$file" 2>&1
  rc=$?
  say "== $name: exit $rc after $(elapsed)s"
  return $rc
}

# 1. both builds at once (the .deb packages unpacked once, before)
if [ -d .deb ]; then . dev/device-env.sh; fi
build() { # build SIDE WORK [NVCCFLAGS]
  mkdir -p "/tmp/fp-ab-build-$1"
  WORK=$2 NVCCFLAGS=${3:-} OUT="/tmp/fp-ab-build-$1" timeout -k 5 330 sh dev/device-build.sh \
    >"$out/dir-$1" 2>"$out/build-$1.txt"
}
say "== builds (at $(elapsed)s)"
build a "${WORK_A:-/tmp/sp-fpa}" &
pa=$!
build k "${WORK_K:-/tmp/sp-fpk}" -DSP_FP_KARATSUBA &
pk=$!
wait $pa; ra=$?
wait $pk; rk=$?
A=$(cat "$out/dir-a"); K=$(cat "$out/dir-k")
say "== builds: A exit $ra ($A), K exit $rk ($K) after $(elapsed)s"
if [ $ra -ne 0 ] || [ $rk -ne 0 ] || [ ! -x "$A/tools/sealprov" ] || [ ! -x "$K/tools/sealprov" ]; then
  tail -20 /tmp/fp-ab-build-a/build.log /tmp/fp-ab-build-k/build.log >>"$log" 2>&1
  say "fp-ab: a build failed (tails in $log)"
  exit 1
fi
# each build is what its side says (a reused WORK keeps its first configure's flags)
grep -q '^NVCCFLAGS = .*-DSP_FP_KARATSUBA' "$K/Makefile" && ! grep -q '^NVCCFLAGS = .*SP_FP_KARATSUBA' "$A/Makefile" ||
  { say "fp-ab: NVCCFLAGS not as wanted in $A/Makefile, $K/Makefile (other WORK_A / WORK_K?)"; exit 1; }

# 2. the variant's kernels against the CPU
step kernels-full 150 "$out/kernels_full.log" "$K/tests/cuda/test_cuda_kernels" --full ||
  fails=$((fails + 1))

# 3. A/B, alternating
bench() { # bench SIDE DIR ROUND
  step "bench-$1-$3" 120 "$out/bench-$1-$3.json" "$2/tools/sealprov" bench gpu --json \
    --msm-g1 24,26 --msm-g2 24 --ntt none --partition none --repeat 5 --precompute off,on ||
    fails=$((fails + 1))
  step "subgroup-$1-$3" 60 "$out/subgroup-$1-$3.log" "$2/tests/cuda/test_cuda_checks" \
    --only=subgroup --sg-bench || fails=$((fails + 1))
}
for r in 1 2; do
  bench a "$A" $r
  bench k "$K" $r
done

# 4. the variant's proofs against the CPU engine's
step engine-full 120 "$out/engine_full.log" "$K/tests/cuda/test_cuda_engine" --full ||
  fails=$((fails + 1))

# 5. machine-code counts of both builds (cuobjdump, when the toolkit has it)
if command -v cuobjdump >/dev/null 2>&1 && [ "$(elapsed)" -lt $((budget - 20)) ]; then
  for side in a k; do
    if [ $side = a ]; then dir=$A; else dir=$K; fi
    x=/tmp/fp-ab-sass-$side
    rm -rf "$x" && mkdir -p "$x"
    (cd "$x" && timeout 20 cuobjdump -xelf all "$dir/plugin/.libs/sealprov.so" >/dev/null 2>&1)
    for c in "$x"/*.cubin; do
      grep -q -e k_msm_accum0 -e k_subgroup_g1 "$c" 2>/dev/null || continue
      s=$(timeout 20 cuobjdump -sass "$c" 2>/dev/null)
      n() { printf '%s\n' "$s" | grep -c -E "$1"; }
      g1add=
      grep -q k_msm_accum0 "$c" && g1add=--g1-add
      {
        echo "== $side ${c##*/}: cuobjdump -sass: IMAD* $(n ' IMAD[ .]') IMAD.WIDE $(n 'IMAD\.WIDE')" \
          "IMAD.MOV $(n 'IMAD\.MOV') (dev/sass-count.py's (whole cubin) row: fma, IMAD.WIDE, IMAD.MOV)"
        python3 dev/sass-count.py "$c" \
          'k_msm_accum0|k_subgroup_g1|k_batch_add|mul_call|sqr_call|mul_sub_mul_call|sg_y3' --totals $g1add
      } >>"$out/sass.txt" 2>&1
    done
  done
fi

# ---- summary ---------------------------------------------------------------------------
{
  echo "== summary ($(elapsed) s in all; logs in $out)"
  echo "builds: A $(sed -n 's/.*built in //p' "$out/build-a.txt"), K $(sed -n 's/.*built in //p' "$out/build-k.txt") (at once)"
  for f in kernels_full engine_full; do
    [ -s "$out/$f.log" ] && echo "K $f: $(grep -E 'checks?, [0-9]+ failures?' "$out/$f.log" | tail -1)"
  done
  grep -h 'cofactor cases' "$out"/subgroup-k-1.log 2>/dev/null | sed 's/^/K /'
  echo "medians, ms (round 1 / round 2):"
  printf '  %-26s %17s %17s %8s\n' "" A K "K/A"
  for f in "$out"/bench-a-1.json; do
    [ -s "$f" ] || continue
    grep '"op": "msm_' "$f" | sed 's/.*"op": "\([a-z0-9_]*\)", "log_n": \([0-9]*\).*"precompute": "\([a-z]*\)".*/\1 \2 \3/' |
      while read -r op lg pre; do
        key="\"op\": \"$op\", \"log_n\": $lg,"
        med() { grep -h "$key" "$out/bench-$1-$2.json" 2>/dev/null | grep "\"precompute\": \"$pre\"" |
          sed -n 's/.*"median_ms": \([0-9.]*\).*/\1/p' | head -1; }
        a1=$(med a 1); a2=$(med a 2); k1=$(med k 1); k2=$(med k 2)
        printf '  %-26s %8s/%-8s %8s/%-8s %8s\n' "$op 2^$lg tables $pre" "${a1:--}" "${a2:--}" \
          "${k1:--}" "${k2:--}" "$(echo "$a1 $a2 $k1 $k2" | awk 'NF == 4 && $1 + $2 > 0 {
            printf "%.3f", ($3 + $4) / ($1 + $2) }')"
      done
  done
  for g in G1 G2; do
    sg() { sed -n "s/^sg-bench $g: .* median \([0-9.]*\) ms.*/\1/p" "$out/subgroup-$1-$2.log" 2>/dev/null; }
    a1=$(sg a 1); a2=$(sg a 2); k1=$(sg k 1); k2=$(sg k 2)
    printf '  %-26s %8s/%-8s %8s/%-8s %8s\n' "subgroup $g $(test $g = G1 && echo 2^22 || echo 2^20)" \
      "${a1:--}" "${a2:--}" "${k1:--}" "${k2:--}" "$(echo "$a1 $a2 $k1 $k2" | awk 'NF == 4 && $1 + $2 > 0 {
        printf "%.3f", ($3 + $4) / ($1 + $2) }')"
  done
  [ -s "$out/sass.txt" ] && { echo "SASS (sass.txt):"; grep -E '^==|^function|whole cubin|per G1' "$out/sass.txt" | cut -c1-230 | sed 's/^/  /'; }
  echo "failed steps: $fails"
} | tee "$out/summary.txt" | tee -a "$log"
[ "$fails" -eq 0 ]
