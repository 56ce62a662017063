#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# gpu_session.sh BUILD OUTDIR STEP... -- one call on the GPU machine: checks that the
# GPU test programs of the CUDA build directory BUILD run, else builds the release
# tarball there (dev/device-build.sh; BUILD "-": that build), then runs the named steps,
# each under a time limit so one stuck step cannot eat the lease.
# Everything goes to OUTDIR/session.log (and OUTDIR/bench*.json); a one-line summary
# per step goes to stdout.
#   steps: info quick full ntt-full msm-full ntt-big engine checks fullsize20 fullsize24
#          engine-full engine-seeds checks-seeds bench
#          bench-quick bench27 memcheck racecheck sass sweep-msm sweep-ntt
set -u
B=${1:?build directory}
O=${2:?outdir}
shift 2
T=$B/tests/cuda
SP=$B/tools/sealprov
L="$O/session.log"
export SP_TEST_CPU_THREADS=${SP_TEST_CPU_THREADS:-16}

run() { # run NAME SECONDS CMD...
  n=$1; t=$2; shift 2
  echo "==== $n: $*" >>"$L"
  s=$(date +%s.%N)
  timeout "$t" "$@" >>"$L" 2>&1
  rc=$?
  e=$(date +%s.%N)
  printf '%-12s rc=%-3s %6.1f s  %s\n' "$n" "$rc" "$(awk "BEGIN{print $e - $s}")" \
    "$(grep -E 'checks,|FAIL|SKIP|differ|error' "$L" | tail -1)"
}

if ! "$T/test_cuda_kernels" --only=none >/dev/null 2>&1; then
  echo "no GPU test programs run in $B; building the tarball here" | tee -a "$L"
  B=$(OUT=$O sh dev/device-build.sh 2>>"$L") || { echo "build failed ($O/build.log)"; exit 1; }
  T=$B/tests/cuda
  SP=$B/tools/sealprov
fi

for step in "$@"; do
  case $step in
    info)
      nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,power.limit \
        --format=csv >>"$L" 2>&1
      nproc >>"$L"; free -g >>"$L" ;;
    quick) run quick 150 "$T/test_cuda_kernels" ;;
    full) run full 600 "$T/test_cuda_kernels" --full ;;
    ntt-full) run ntt-full 300 "$T/test_cuda_kernels" --full --only=ntt ;;
    msm-full) run msm-full 400 "$T/test_cuda_kernels" --full --only=msm1 ;;
    ntt-big) run ntt-big 590 "$T/test_cuda_kernels" --only=none --big=24,27 ;;
    engine) run engine 150 "$T/test_cuda_engine" ;;
    engine-seeds) # three seeds (SEEDS="S1 S2 ..." to choose): some faults show for a few only
      run engine-seeds 400 sh tests/cuda/seeds.sh ${SEEDS:+-s "$SEEDS"} -l "$O/seeds" "$T/test_cuda_engine" ;;
    checks-seeds)
      run checks-seeds 500 sh tests/cuda/seeds.sh ${SEEDS:+-s "$SEEDS"} -l "$O/seeds" "$T/test_cuda_checks" ;;
    checks) run checks 300 "$T/test_cuda_checks" --setup-max=18 ;;
    fullsize20) run fullsize20 300 "$T/fullsize" --dir /tmp/sp-full20 --log 20 --inputs 16 --threads 16 ;;
    fullsize24) run fullsize24 590 "$T/fullsize" --dir /tmp/sp-full24 --log 24 --threads 16 ;;
    engine-full) run engine-full 500 "$T/test_cuda_engine" --full ;;
    bench-quick) run bench-quick 120 "$SP" bench gpu --quick ;;
    bench)
      run bench 200 sh -c "'$SP' bench gpu --json --partition 20,24 >'$O/bench.json'"
      cat "$O/bench.json" >>"$L" ;;
    bench27)
      run bench27 240 sh -c "'$SP' bench gpu --json --msm-g1 none --msm-g2 none --ntt none \
        --partition 27 --repeat 3 >'$O/bench27.json'"
      cat "$O/bench27.json" >>"$L" ;;
    memcheck)
      run memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 9 \
        "$T/test_cuda_kernels" --only=ntt
      run memcheck-msm 150 compute-sanitizer --tool memcheck --error-exitcode 9 \
        "$T/test_cuda_kernels" --only=msm1 ;;
    racecheck)
      run racecheck 120 compute-sanitizer --tool racecheck --error-exitcode 9 \
        "$T/test_cuda_kernels" --only=ntt ;;
    sass) # opcode histogram of a few kernels (the whole dump is too large to bring back)
      cuobjdump --dump-sass "$T/test_cuda_kernels" >/tmp/sass.txt 2>&1
      for k in k_field_opsI8spc_montI10spc_fr k_field_opsI8spc_montI10spc_fp k_ntt_passILb0 \
               k_msm_accum0I8spc 10add_affineERKS3_; do
        echo "== $k" >>"$O/sass.txt"
        awk -v k="$k" '/Function : /{f = index($0, k) > 0} f' /tmp/sass.txt |
          grep -oE '^ +/\*[0-9a-f]+\*/ +[A-Z0-9_.]+' | awk '{print $2}' | sort | uniq -c |
          sort -rn | head -25 >>"$O/sass.txt"
      done
      echo "sass: $(wc -l </tmp/sass.txt) lines dumped" ;;
    sweep-msm) # window sizes, G1 2^24, with the phase profile (a PROFILE=1 build)
      for c in 16 18 20; do
        echo "== window $c" >>"$O/sweep.log"
        SP_GPU_PROFILE=1 timeout 60 "$SP" bench gpu --msm-g1 24 --msm-g2 none \
          --ntt none --partition none --repeat 3 --window $c >>"$O/sweep.log" 2>&1
      done
      grep -E "^== |^msm_g1" "$O/sweep.log" | paste - - ;;
    sweep-ntt) # the NTT sizes with the bit reversal timed apart (a PROFILE=1 build)
      echo "== ntt" >>"$O/sweep.log"
      SP_GPU_PROFILE=1 timeout 60 "$SP" bench gpu --msm-g1 none --msm-g2 none \
        --ntt 24,27 --partition none --repeat 3 >>"$O/sweep.log" 2>&1
      grep -E "^== ntt|^(ntt|intt|coset)|^profile ntt" "$O/sweep.log" ;;
    *) echo "unknown step $step" ;;
  esac
done
