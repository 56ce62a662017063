#!/bin/bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# dev/gpu-verify.sh -- a short check of a CUDA build on a GPU machine that cannot build
# (no libtool, libinih or check there, and a few minutes of device time): the programs
# are built here and carried.
#
#   dev/gpu-verify.sh pack BUILD_DIR   (here, after `dev/run test` or any CUDA build with
#       --enable-fault-injection) packs the GPU test programs, the CLI, the module,
#       libinih and libxxhash into .gpu-verify/pkg.tar.xz, and makes the reference
#       proofs: a 4-partition 2^14 set-up with seed 7, proved with r = s = 0 on a CPU
#       device by this build (.gpu-verify/cpu-new.proofs) and, when REF_BUILD names
#       another build tree (an older commit's), by that one too (cpu-old.proofs)
#   dev/gpu-verify.sh run  (on the GPU machine; carry .gpu-verify) runs test_cuda_engine
#       --full, `sealprov devices` and the GPU demo, repeats the set-up (its parameters must
#       hash the same), proves the 4 partitions with r = s = 0 on GPU 0, verifies them and
#       compares the proof bytes with the CPU's, then the four other GPU suites at their
#       default sizes. Logs to $OUT; a table last. BUDGET_S (default 150) bounds the run.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
v=$top/.gpu-verify
setup_args="--constraints 2^14 --inputs 4 --partitions 4 --seed 7"
case ${1:-} in
pack)
  set -e
  b=$(cd "${2:?usage: dev/gpu-verify.sh pack BUILD_DIR}" && pwd)
  mkdir -p "$v"; s=$(mktemp -d)
  mkdir -p "$s/t" "$s/bin" "$s/lib/sealprov"
  for t in test_cuda_engine test_cuda_kernels test_cuda_checks test_cuda_spmv test_cuda_load; do
    cp "$b/tests/cuda/$t" "$s/t/"
  done
  cp "$b/tools/sealprov" "$b/kit/cli/sealprov-kit" "$s/bin/" # setup: sealprov-kit
  [ -x "$b/bench/sealprov-bench" ] && cp "$b/bench/sealprov-bench" "$s/bin/" # bench, stress
  cp "$b/plugin/.libs/sealprov.so" "$s/lib/sealprov/"
  cp -L "$(ldconfig -p | awk '/libinih.so.1 / { print $NF; exit }')" "$s/lib/"
  cp -L "$(ldconfig -p | awk '/libxxhash.so.0 / { print $NF; exit }')" "$s/lib/"
  strip "$s"/t/* "$s"/bin/* "$s/lib/sealprov/sealprov.so" 2>/dev/null || true
  tar -C "$s" -cf - . | xz -T0 -6 > "$v/pkg.tar.xz"
  printf '[provider]\nlog_level = warn\n\n[cpu0]\ntype = cpu\nworkers = 1\nthreads = 0\n' > "$s/cpu.ini"
  "$b/tools/sealprov" setup $setup_args --out "$s/eq" > /dev/null
  sha256sum "$s/eq/circuit.params" | cut -c1-64 > "$v/params.sha256"
  prove_cpu() { # prove_cpu BUILD OUT
    "$1/tools/sealprov" --plugin "$1/plugin/.libs/sealprov.so" prove -c "$s/cpu.ini" \
      --params "$s/eq/circuit.params" --zero-rs --out "$2" "$s"/eq/partition-0[0-3].spa > /dev/null 2>&1
  }
  prove_cpu "$b" "$v/cpu-new.proofs"
  rm -f "$v/cpu-old.proofs"
  [ -n "${REF_BUILD:-}" ] && prove_cpu "$REF_BUILD" "$v/cpu-old.proofs"
  if [ -f "$v/cpu-old.proofs" ]; then
    cmp "$v/cpu-new.proofs" "$v/cpu-old.proofs" && echo "CPU engine: this build's proofs equal REF_BUILD's"
  fi
  rm -rf "$s"; ls -la "$v"
  ;;
run)
  OUT=${OUT:-/tmp/gpu-verify-out}; mkdir -p "$OUT"
  w=/tmp/sp-gpu-verify; rm -rf "$w"; mkdir -p "$w"
  t_start=$(date +%s)
  xz -dc "$v/pkg.tar.xz" | tar -x -C "$w" || { echo "cannot unpack $v/pkg.tar.xz"; exit 1; }
  export LD_LIBRARY_PATH="$w/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv > "$OUT/gpu.txt" 2>&1
  printf '[provider]\nlog_level = warn\nverify_proofs = true\n\n[gpu0]\ntype = cuda\ndevice = 0\n' > "$w/gpu.ini"
  sum=()
  step() { # step NAME LIMIT CMD...
    local name=$1 lim=$2; shift 2
    local left=$((${BUDGET_S:-150} - ($(date +%s) - t_start)))
    if [ "$left" -lt 8 ]; then sum+=("$(printf '%-16s SKIPPED (budget)' "$name")"); return; fi
    [ "$lim" -gt "$left" ] && lim=$left
    local t0=$(date +%s)
    timeout -k 5 "$lim" "$@" > "$OUT/$name.log" 2>&1
    local rc=$?
    local last=$(grep -E 'checks?, [0-9]+ failures?|proofs verify|demo OK' "$OUT/$name.log" | tail -1 | cut -c1-100)
    sum+=("$(printf '%-16s rc=%-3s %4ss  %s' "$name" "$rc" "$(($(date +%s) - t0))" "$last")")
  }
  cd "$w"
  P="--plugin $w/lib/sealprov/sealprov.so"
  step engine_full 60 ./t/test_cuda_engine --full
  step devices 20 ./bin/sealprov $P devices --wide -c "$w/gpu.ini"
  step demo_gpu 60 ./bin/sealprov $P demo -c "$w/gpu.ini"
  step setup_eq 30 ./bin/sealprov setup $setup_args --out "$w/eq"
  if [ "$(sha256sum "$w/eq/circuit.params" | cut -c1-64)" = "$(cat "$v/params.sha256")" ]; then
    sum+=("setup_eq         the same parameters as where the package was made")
  else
    sum+=("setup_eq         DIFFERENT parameters from where the package was made")
  fi
  step prove_gpu 30 ./bin/sealprov $P prove -c "$w/gpu.ini" --params "$w/eq/circuit.params" \
    --zero-rs --out "$OUT/gpu.proofs" "$w"/eq/partition-0[0-3].spa
  step verify_gpu 20 ./bin/sealprov $P verify --vk "$w/eq/circuit.vk" --proofs "$OUT/gpu.proofs" \
    "$w"/eq/partition-0[0-3].spa
  for ref in cpu-new cpu-old; do
    [ -f "$v/$ref.proofs" ] || continue
    if cmp "$OUT/gpu.proofs" "$v/$ref.proofs" > /dev/null 2>&1; then r=EQUAL; else r=DIFFER; fi
    sum+=("$(printf 'gpu vs %-9s %s' "$ref" "$r")")
  done
  step kernels 40 ./t/test_cuda_kernels
  step checks 40 ./t/test_cuda_checks
  step spmv 30 ./t/test_cuda_spmv
  step load 30 ./t/test_cuda_load
  echo "== dev/gpu-verify.sh run: $(($(date +%s) - t_start)) s"
  cat "$OUT/gpu.txt"
  for s in "${sum[@]}"; do echo "$s"; done
  ! printf '%s\n' "${sum[@]}" | grep -q -E 'rc=[1-9]|DIFFER|SKIPPED'
  ;;
*)
  sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
  ;;
esac
