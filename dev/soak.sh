#!/bin/sh
# The long soak of issue 13 (item 6) and the error catalogue (item 7), beyond what
# `make check` runs. From the repository root:
#
#   dev/soak.sh long [JOBS]     tests/module/test_soak with JOBS jobs (default 10000) on
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

# build DIR [configure args...]: configure once, then make the module, CLI and tests.
build() {
  dir=$1; shift
  [ -x configure ] || { say "autoreconf"; autoreconf -fi; }
  mkdir -p "$dir"
  if [ ! -f "$dir/Makefile" ]; then
    say "configure $* (in $dir)"
    (cd "$dir" && ../configure "$@") > "$logs/configure-$(basename "$dir").log" 2>&1 ||
      { tail -30 "$logs/configure-$(basename "$dir").log"; exit 1; }
  fi
  say "make (in $dir)"
  make -C "$dir" -j"$ncpu" >/dev/null
  make -C "$dir" -j"$ncpu" tests/module/test_soak tests/module/test_bad_inputs >/dev/null
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
  if run_in "$dir" env SEALPROV_SOAK_JOBS="$jobs" "$@" tests/module/test_soak \
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
    run_in _build-soak-asan tests/module/test_bad_inputs > "$logs/bad-inputs-asan.log" 2>&1 ||
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
    build _build-soak-gpu --with-cuda --enable-fault-injection --enable-werror
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
  errors-doc)
    build _build-soak --without-cuda --enable-werror
    # Known defects make the test fail; the doc marks those rows, so write it anyway.
    run_in _build-soak tests/module/test_bad_inputs --markdown > "$logs/errors.md" 2> "$logs/bad-inputs.log" || true
    tail -1 "$logs/bad-inputs.log"
    grep -q '^| 1 |' "$logs/errors.md" || { echo "no table was produced" >&2; exit 1; }
    cp "$logs/errors.md" docs/errors.md
    say "wrote docs/errors.md ($(grep -c '^| [0-9]' docs/errors.md) cases)"
    ;;
  errors-check)
    build _build-soak --without-cuda --enable-werror
    run_in _build-soak env SEALPROV_ERRORS_DOC="$top/docs/errors.md" tests/module/test_bad_inputs
    ;;
  all)
    "$0" long && "$0" asan && "$0" tsan && "$0" valgrind && "$0" errors-check
    ;;
  *)
    sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
