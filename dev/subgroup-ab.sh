#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# dev/subgroup-ab.sh NEW BASE -- an A/B of the subgroup kernels and the validated load
# on a machine with one NVIDIA GPU, from two CUDA build directories (each made by
# dev/device-build.sh from its tree's tarball, WORK set apart): NEW (this tree:
# tests/cuda/fullsize, test_cuda_checks, test_cuda_load, `sealprov bench load`) and BASE
# (the tree before: tests/cuda/fullsize). Steps, each with its own time limit:
#   1. NEW test_cuda_checks --only=subgroup --sg-bench: the G1 and G2 kernels' verdicts
#      on the cofactor cases equal the CPU's, and the checker's rate
#      (the candidate G1 kernels were compared here);
#   2. NEW test_cuda_load: the direct load byte-equal to the host load, bad files, a
#      proof;
#   3. a 2^24 file made once by NEW fullsize (GPU setup, --keep) in $SG_DIR;
#   4. the direct load of that file, BASE and NEW alternating, $SG_RUNS (default 3) each;
#   5. NEW `sealprov bench load` on that file (default modes: direct, checked, on-curve;
#      cold).
# Logs and the summary go to $OUT (default /tmp/sg-out): at most 8 files. The summary
# table is printed last. Exit 77 when no GPU is visible, 1 when a check failed.
set -u
new=${1:?usage: subgroup-ab.sh NEW BASE}
base=${2:?usage: subgroup-ab.sh NEW BASE}
out=${OUT:-/tmp/sg-out}
dir=${SG_DIR:-/tmp/sg24}
runs=${SG_RUNS:-3}
mkdir -p "$out" || exit 1
log=$out/run.log
for f in run.log checks.log load.log ab.log ab-loads.txt bench_load.json sass.txt summary.txt; do
  : >"$out/$f"
done
say() { echo "$*" | tee -a "$log"; }
t_start=$(date +%s)
elapsed() { echo $(($(date +%s) - t_start)); }

if [ -z "${SG_DRY:-}" ] && ! nvidia-smi -L >/dev/null 2>&1; then
  say "subgroup-ab: no NVIDIA GPU visible (nvidia-smi -L failed): nothing measured"
  exit 77
fi
for b in "$new/tests/cuda/fullsize" "$new/tests/cuda/test_cuda_checks" \
         "$new/tests/cuda/test_cuda_load" "$new/tools/sealprov" "$base/tests/cuda/fullsize"; do
  [ -x "$b" ] || { say "subgroup-ab: $b missing"; exit 1; }
done
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.used --format=csv 2>&1
  nproc; free -g | head -2; uname -r; } >>"$log" 2>&1
fails=0

# step NAME LIMIT FILE CMD...: runs CMD with a time limit, output to FILE (appended)
step() {
  name=$1; lim=$2; file=$3; shift 3
  say "== $name (limit ${lim}s, at $(elapsed)s): $*"
  timeout "$lim" "$@" >>"$file" 2>&1
  rc=$?
  say "== $name: exit $rc after $(elapsed)s"
  return $rc
}

# 1. the kernels' verdicts and rates
step checks 90 "$out/checks.log" "$new/tests/cuda/test_cuda_checks" --only=subgroup --sg-bench
rc=$?
if [ $rc -eq 77 ]; then say "subgroup-ab: the test programs see no GPU"; exit 77; fi
[ $rc -eq 0 ] || fails=$((fails + 1))

# 2. the direct load against the host load
step load-tests 150 "$out/load.log" "$new/tests/cuda/test_cuda_load" || fails=$((fails + 1))

# 3. one 2^24 file for everything below
rm -rf "$dir"
mkdir -p "$dir"
step setup24 120 "$out/ab.log" "$new/tests/cuda/fullsize" --dir "$dir" --log 24 --partitions 0 --keep ||
  { say "subgroup-ab: no 2^24 file"; fails=$((fails + 1)); }

# 4. A/B of the direct load (fullsize --reuse: circuit, then the timed srs_load)
if [ -s "$dir/full.params" ]; then
  i=0
  while [ $i -lt "$runs" ]; do
    for side in base new; do
      eval "bin=\$$side"
      before=$(grep -c '^load (' "$out/ab.log")
      step "ab-$side-$i" 60 "$out/ab.log" "$bin/tests/cuda/fullsize" --dir "$dir" --log 24 --partitions 0 \
        --keep --reuse || fails=$((fails + 1))
      [ "$(grep -c '^load (' "$out/ab.log")" -gt "$before" ] &&
        grep '^load (' "$out/ab.log" | tail -1 | sed "s/^/$side: /" >>"$out/ab-loads.txt"
    done
    i=$((i + 1))
  done
  # 5. the new `bench load` on the same file, default modes
  step bench-load 120 "$out/bench_load.json" "$new/tools/sealprov" --progress bench load --json \
    "$dir/full.params" ||
    fails=$((fails + 1))
fi

# cuobjdump's SASS counts of the G1 kernels and the doubling (for the next step, if
# the toolkit has it): IMAD.WIDE, IMAD.MOV, LDL/STL and all instructions per function
if command -v cuobjdump >/dev/null 2>&1; then
  timeout 60 cuobjdump -sass "$new/tests/cuda/test_cuda_checks" 2>/dev/null | awk '
    /Function : / { fn = $3; next }
    fn ~ /k_subgroup|sg_jdbl6|sg_y3|mul_call|sqr_call/ && /^ +\/\*[0-9a-f]+\*\// {
      n[fn]++; if ($0 ~ /IMAD\.WIDE/) w[fn]++; if ($0 ~ /IMAD\.MOV/) m[fn]++;
      if ($0 ~ /LDL|STL/) l[fn]++ }
    END { for (f in n) printf "%-90s instr %6d IMAD.WIDE %6d IMAD.MOV %5d LDL/STL %5d\n",
                                 f, n[f], w[f], m[f], l[f] }' >"$out/sass.txt" 2>&1
fi
rm -rf "$dir"

# ---- summary ---------------------------------------------------------------------------
{
  echo "== summary ($(elapsed) s in all; logs in $out)"
  grep -h 'checks, .* failures' "$out/checks.log" "$out/load.log" 2>/dev/null |
    sed 's/^/tests: /'
  grep -h '^FAIL' "$out/checks.log" "$out/load.log" 2>/dev/null | head -5
  grep -h 'cofactor cases' "$out/checks.log" 2>/dev/null | sed 's/^/  /'
  grep -h '^sg-bench' "$out/checks.log" 2>/dev/null | sed 's/^/  /'
  if [ -s "$out/ab-loads.txt" ]; then
    echo "direct load of the 2^24 file (fullsize; s, Mpoints/s, device s, reader waited s):"
    for side in base new; do
      grep "^$side: " "$out/ab-loads.txt" | sed 's/.*: \([0-9.]*\) s, [0-9.]* GB\/s, \([0-9.]*\) Mpoints\/s.*device work \([0-9.]*\) s, of which the reader waited for the GPU \([0-9.]*\) s/\1 \2 \3 \4/' |
        sort -n | awk -v side="$side" '{ s[NR] = $0; l = l " " $1 }
          END { if (NR) { split(s[int((NR + 1) / 2)], m, " ");
                printf "  %-4s median %s s, %s Mpoints/s, device %s s, waited %s s (runs:%s)\n",
                       side, m[1], m[2], m[3], m[4], l } }'
    done
  fi
  if [ -s "$out/bench_load.json" ]; then
    echo "bench load (2^24 file, default modes):"
    grep '^{"file": ' "$out/bench_load.json" | while IFS= read -r l; do
      m=$(printf '%s' "$l" | sed -n 's/.*"mode": "\([a-z_]*\)".*/\1/p')
      w=$(printf '%s' "$l" | sed -n 's/.*"warm_s": \([0-9.]*\).*/\1/p')
      r=$(printf '%s' "$l" | sed -n 's/.*"warm_runs_s": \[\([0-9., ]*\)\].*/\1/p')
      p=$(printf '%s' "$l" | sed -n 's/.*"warm_points_per_s": \([0-9]*\).*/\1/p')
      c=$(printf '%s' "$l" | sed -n 's/.*"cold_s": \([0-9.]*\).*/\1/p')
      echo "  $m: warm ${w:-?} s (runs $r), ${p:-?} points/s, cold ${c:--} s"
    done
  fi
  [ -s "$out/sass.txt" ] && { echo "SASS (sass.txt):"; sed 's/^/  /' "$out/sass.txt" | head -12; }
  echo "failed steps: $fails"
} | tee "$out/summary.txt" | tee -a "$log"
[ "$fails" -eq 0 ]
