#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# The long soaks and the error catalogue, beyond what
# `make check` runs. From the repository root:
#
#   dev/soak.sh long [JOBS]     tests/abi/test_soak with JOBS jobs (default 10000) on
#                               two CPU devices (build: _build-soak, --without-cuda)
#   dev/soak.sh asan [JOBS]     the soak (default 1000) and the bad-input catalogue under
#                               ASan+UBSan+LSan (_build-soak-asan)
#   dev/soak.sh tsan [JOBS]     the soak (default 400) under TSan (_build-soak-tsan)
#   dev/soak.sh valgrind [JOBS] the soak (default 40) under valgrind memcheck, every
#                               leak and error fatal (_build-soak)
#   dev/soak.sh gpu [JOBS]      on a GPU machine: the soak (default 1000) on every GPU
#                               plus one CPU device, with [testing] fault injection on
#                               GPU 0 (corrupt_proof for its first 20 tasks, then it
#                               behaves); only that GPU may be charged failures.
#                               Build: _build-soak-gpu, --with-cuda --enable-fault-injection (source
#                               dev/device-env.sh first on the lent machines)
#   dev/soak.sh plan [ARGS...]  `sealprov soak` on two CPU devices:
#                               the GPU plan's shape at 2^10, 2,000 partitions, then a big
#                               phase at 2^12 (build: _build-soak); ARGS go to the command
#   dev/soak.sh gpu-long [main|big|all]
#                               on a GPU machine, `sealprov soak` on every GPU (INI with
#                               params_subgroup_check and verify_proofs on). main: 2,400
#                               partitions at 2^20 in 3 open/close cycles of 4 segments
#                               (cancels, bad partitions, srs reloads, jobs in flight at
#                               close); big: a checked load of 2^27 parameters (a ~49 GB
#                               file in SOAK_DIR, made once by a GPU setup, loaded twice,
#                               removed) and 30 partitions in jobs of 10. all (default):
#                               both, one process each. Build: _build-soak-gpu. Env:
#                               SOAK_DIR (default /tmp/sp-soak-params), SOAK_PARTITIONS,
#                               SOAK_BIG_LOG, SOAK_TIME_LIMIT (s, per phase), SOAK_ARGS
#   dev/soak.sh gpu-seeds [N]   on a GPU machine: tests/cuda/test_cuda_engine with N seeds
#                               (default 3), tests/cuda/seeds.sh
#   dev/soak.sh errors-doc      regenerates docs/errors.md from test_bad_inputs
#   dev/soak.sh errors-check    fails if docs/errors.md is not what the cases say now
#   dev/soak.sh all             long, asan, tsan, valgrind, errors-check (no GPU)
#
# SEALPROV_SOAK_SEED=N repeats a run (each run prints its seed). Logs: $OUT if set,
# else _build-soak/soak-logs/.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
mode=${1:-}
jobs_arg=${2:-}
ncpu=$(nproc 2>/dev/null || echo 2)
logs=${OUT:-$top/_build-soak/soak-logs}
mkdir -p "$logs"

say() { printf '== %s\n' "$*"; }

# CUDA builds here know their machine: code for the GPUs nvidia-smi lists only
gpu_archs=$(sh "$top/dev/gpu-archs.sh")

# build_only DIR [configure args...]: configure once, then make the module and the CLI.
build_only() {
  dir=$1; shift
  [ -x configure ] || { say "autoreconf"; autoreconf -fi; }
  mkdir -p "$dir"
  if [ ! -f "$dir/Makefile" ]; then
    say "configure $* (in $dir)"
    (cd "$dir" && ../configure "$@") > "$logs/configure-$(basename "$dir").log" 2>&1 ||
      { tail -30 "$logs/configure-$(basename "$dir").log"; exit 1; }
  fi
  say "make (in $dir)"
  make -C "$dir" -j"$ncpu" > "$logs/make-$(basename "$dir").log" 2>&1 ||
    { tail -30 "$logs/make-$(basename "$dir").log"; exit 1; }
}

# build DIR [configure args...]: build_only, then the soak's and the catalogue's tests.
build() {
  build_only "$@"
  make -C "$1" -j"$ncpu" tests/abi/test_soak tests/abi/test_bad_inputs >/dev/null
}

# gpu_ini FILE: every GPU nvidia-smi lists, each point of a .params file checked.
gpu_ini() {
  command -v nvidia-smi >/dev/null || { echo "no nvidia-smi: not a GPU machine" >&2; exit 2; }
  ngpu=$(nvidia-smi -L | grep -c '^GPU' || true)
  [ "$ngpu" -gt 0 ] || { echo "nvidia-smi lists no GPU" >&2; exit 2; }
  printf '[provider]\nlog_level = warn\nverify_proofs = true\nparams_subgroup_check = true\nmax_jobs = 1000\n\n' > "$1"
  i=0
  while [ "$i" -lt "$ngpu" ]; do
    printf '[gpu%d]\ntype = cuda\ndevice = %d\n\n' "$i" "$i" >> "$1"
    i=$((i + 1))
  done
}

# soak_cli DIR NAME ARGS...: `sealprov soak` of build DIR, the log, series and JSON summary
# in $logs/soak-NAME.*; prints the summary (the end of the log) and returns its status.
soak_cli() {
  dir=$1 name=$2; shift 2
  say "sealprov soak $* (log: $logs/soak-$name.log)"
  start=$(date +%s)
  # shellcheck disable=SC2086
  if run_in "$dir" tools/sealprov soak --series "$logs/soak-$name-series.csv" \
      --json-file "$logs/soak-$name.json" "$@" ${SOAK_ARGS:-} > "$logs/soak-$name.log" 2>&1; then
    rc=0
  else
    rc=$?
  fi
  sed -n '/^== sealprov soak/,$p' "$logs/soak-$name.log"
  [ "$rc" -eq 0 ] || grep -E 'error|FAIL' "$logs/soak-$name.log" | head -5
  say "soak $name: exit $rc after $(( $(date +%s) - start )) s"
  return $rc
}

# env for running a test of build DIR by hand, as make check would
run_in() {
  dir=$1; shift
  (cd "$dir" && SEALPROV_PLUGIN="$PWD/plugin/.libs/sealprov.so" top_builddir="$PWD" \
    top_srcdir="$top" "$@")
}

soak() { # soak DIR JOBS LOGNAME [wrapper...]
  dir=$1 jobs=$2 name=$3; shift 3
  say "soak: $jobs jobs in $dir${1:+ under $*} (log: $logs/$name.log)"
  start=$(date +%s)
  if run_in "$dir" env SEALPROV_SOAK_JOBS="$jobs" "$@" tests/abi/test_soak \
      > "$logs/$name.log" 2>&1; then
    rc=0
  else
    rc=$?
  fi
  grep '^test_soak' "$logs/$name.log" || true
  say "soak $name: exit $rc after $(( $(date +%s) - start )) s"
  return $rc
}

case $mode in
  long)
    build _build-soak --without-cuda --enable-werror
    soak _build-soak "${jobs_arg:-10000}" long
    ;;
  asan)
    build _build-soak-asan --without-cuda --enable-sanitizers
    soak _build-soak-asan "${jobs_arg:-1000}" asan
    say "bad-input catalogue under ASan (log: $logs/bad-inputs-asan.log)"
    run_in _build-soak-asan tests/abi/test_bad_inputs > "$logs/bad-inputs-asan.log" 2>&1 ||
      { tail -40 "$logs/bad-inputs-asan.log"; exit 1; }
    tail -1 "$logs/bad-inputs-asan.log"
    ;;
  tsan)
    build _build-soak-tsan --without-cuda --enable-sanitizers=thread
    TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
    export TSAN_OPTIONS
    soak _build-soak-tsan "${jobs_arg:-400}" tsan
    ;;
  valgrind)
    command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 2; }
    build _build-soak --without-cuda --enable-werror
    # The module is dlopen'ed by the libtool-built program itself (no wrapper script:
    # test_soak links the internals statically).
    soak _build-soak "${jobs_arg:-40}" valgrind valgrind --error-exitcode=99 \
      --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
      --track-origins=no
    ;;
  gpu)
    command -v nvidia-smi >/dev/null || { echo "no nvidia-smi: not a GPU machine" >&2; exit 2; }
    ngpu=$(nvidia-smi -L | grep -c '^GPU')
    [ "$ngpu" -gt 0 ] || { echo "nvidia-smi lists no GPU" >&2; exit 2; }
    build _build-soak-gpu --with-cuda ${gpu_archs:+--with-cuda-arch=$gpu_archs} --enable-fault-injection --enable-werror
    ini="$top/_build-soak-gpu/soak-gpu.ini"
    printf '[provider]\nlog_level = warn\nquarantine_after = 30\nmax_attempts = 3\nmax_jobs = 1000\n\n' > "$ini"
    i=0
    while [ "$i" -lt "$ngpu" ]; do
      printf '[gpu%d]\ntype = cuda\ndevice = %d\n\n' "$i" "$i" >> "$ini"
      i=$((i + 1))
    done
    printf '[cpu0]\ntype = cpu\n\n[testing]\ninject_device = gpu0\ninject = corrupt_proof\ninject_count = 20\n' >> "$ini"
    cp "$ini" "$logs/"
    SEALPROV_SOAK_INI=$ini SEALPROV_SOAK_FAULTY=gpu0
    export SEALPROV_SOAK_INI SEALPROV_SOAK_FAULTY
    soak _build-soak-gpu "${jobs_arg:-1000}" gpu
    ;;
  plan)
    build_only _build-soak --without-cuda --enable-werror
    ini="$top/_build-soak/soak-plan.ini"
    printf '[provider]\nlog_level = error\nmax_jobs = 1000\n\n[cpu0]\ntype = cpu\nthreads = 1\n\n[cpu1]\ntype = cpu\nthreads = 1\n' > "$ini"
    shift
    soak_cli _build-soak plan -c "$ini" --dir "$top/_build-soak/soak-plan" --log 10 \
      --inputs 8 --witnesses 4 --partitions 2000 --cycles 3 --segments 4 --threads 4 \
      --burst 8 --big-log 12 --big-inputs 32 --big-partitions 30 --big-job 10 \
      --sample-ms 500 --nvidia-smi none "$@"
    ;;
  gpu-long)
    phase=${jobs_arg:-all}
    case $phase in main | big | all) ;; *) echo "gpu-long: main, big or all, not $phase" >&2; exit 2 ;; esac
    ini="$top/_build-soak-gpu/soak-long.ini"
    mkdir -p "$top/_build-soak-gpu"
    gpu_ini "$ini"
    build_only _build-soak-gpu --with-cuda ${gpu_archs:+--with-cuda-arch=$gpu_archs} --enable-werror
    cp "$ini" "$logs/"
    nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv > "$logs/gpus.csv" 2>&1 || true
    sdir=${SOAK_DIR:-/tmp/sp-soak-params}
    mkdir -p "$sdir"
    limit=${SOAK_TIME_LIMIT:+--time-limit $SOAK_TIME_LIMIT}
    rc=0
    if [ "$phase" != big ]; then
      # shellcheck disable=SC2086
      soak_cli _build-soak-gpu main -c "$ini" --dir "$sdir" --gpu --log 20 --inputs 16 \
        --witnesses 4 --partitions "${SOAK_PARTITIONS:-2400}" --cycles 3 --segments 4 \
        --threads 4 --max-parts 4 --burst 8 --sample-ms 2000 $limit || rc=1
    fi
    if [ "$phase" != main ]; then
      k=${SOAK_BIG_LOG:-27}
      # the .params: ~49.2 GB at 2^27, half per step down; and a margin
      need=$(awk -v k="$k" 'BEGIN { printf "%d", 49.2 * 2 ^ (k - 27) + 2 }')
      have=$(df -P -B1G "$sdir" | awk 'NR == 2 { print $4 }')
      if [ "$have" -lt "$need" ]; then
        echo "gpu-long big: $sdir has $have GB free, the 2^$k parameters need about $need GB" >&2
        exit 1
      fi
      # shellcheck disable=SC2086
      soak_cli _build-soak-gpu big -c "$ini" --dir "$sdir" --gpu --partitions 0 \
        --big-log "$k" --big-inputs 328 --big-partitions 30 --big-job 10 --big-urgent-after 2 \
        --sample-ms 2000 $limit || rc=1
    fi
    exit $rc
    ;;
  gpu-seeds)
    command -v nvidia-smi >/dev/null || { echo "no nvidia-smi: not a GPU machine" >&2; exit 2; }
    build_only _build-soak-gpu --with-cuda ${gpu_archs:+--with-cuda-arch=$gpu_archs} --enable-werror
    make -C _build-soak-gpu -j"$ncpu" tests/cuda/test_cuda_engine >/dev/null
    SP_TEST_CPU_THREADS=${SP_TEST_CPU_THREADS:-$ncpu}
    export SP_TEST_CPU_THREADS
    sh tests/cuda/seeds.sh -n "${jobs_arg:-3}" -l "$logs/seeds" _build-soak-gpu/tests/cuda/test_cuda_engine
    ;;
  errors-doc)
    build _build-soak --without-cuda --enable-werror
    # Known defects make the test fail; the doc marks those rows, so write it anyway.
    run_in _build-soak tests/abi/test_bad_inputs --markdown > "$logs/errors.md" 2> "$logs/bad-inputs.log" || true
    tail -1 "$logs/bad-inputs.log"
    grep -q '^| 1 |' "$logs/errors.md" || { echo "no table was produced" >&2; exit 1; }
    cp "$logs/errors.md" docs/errors.md
    say "wrote docs/errors.md ($(grep -c '^| [0-9]' docs/errors.md) cases)"
    ;;
  errors-check)
    build _build-soak --without-cuda --enable-werror
    run_in _build-soak env SEALPROV_ERRORS_DOC="$top/docs/errors.md" tests/abi/test_bad_inputs
    ;;
  all)
    "$0" long && "$0" asan && "$0" tsan && "$0" valgrind && "$0" errors-check
    ;;
  *)
    sed -n '3,40p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
