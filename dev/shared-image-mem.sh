#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# dev/shared-image-mem.sh [PARAMS] -- on the GPU machine: the host memory that 1, 2 and 4
# concurrent children hold, each a fresh process that loads PARAMS (default
# /tmp/sp-fullsize/full.params, the 2^27 file of dev/validated-load.sh) through
# create_SRS on a cpu device, as Curio's per-proof children would where the set lives on
# the host, and keeps it until every child has loaded (tests/compat/c2_load --hold).
#   BUILD     a build directory with tests/compat/c2_load and plugin/.libs/sealprov.so
#             (default: dev/device-build.sh makes one, as dev/validated-load.sh does)
#   RECORDS   the validation record store (default: PARAMS's folder/records): when it
#             has no record of PARAMS, one child on [gpu0] validates the file first, so
#             that the cpu children skip the subgroup checks (decoding and the on-curve
#             checks remain: the children's load time)
#   CHILDREN  the counts to measure (default "1 2 4")
#   MODES     "off" (default): today's per-process load; "auto" adds
#             [provider] params_shared_image = auto, once the module reads that key
#   DROP=1    drop the page cache before each run (root), so Cached starts from the floor
# Per run: the children's create_SRS time (the slowest), and once all have loaded the
# sum of their Rss and Pss (/proc/PID/smaps_rollup), and the host's MemAvailable drop,
# Shmem and Cached growth against the figures before the children started; also the
# peak of the Rss sum while they loaded. Output: the table on stdout and in
# OUT/shared-image-mem.txt (OUT default /tmp/sp-shimage-out), the children's logs in OUT.
set -eu
cd "$(dirname "$0")/.."
params=${1:-/tmp/sp-fullsize/full.params}
out=${OUT:-/tmp/sp-shimage-out}
records=${RECORDS:-$(dirname "$params")/records}
mkdir -p "$out"
[ -f "$params" ] || { echo "shared-image-mem: $params: no such file (dev/validated-load.sh makes it)" >&2; exit 1; }
[ -d .deb ] && . dev/device-env.sh
if [ -n "${BUILD:-}" ]; then build=$(cd "$BUILD" && pwd); else build=$(OUT=$out sh dev/device-build.sh); fi
load="$build/tests/compat/c2_load"
plugin="$build/plugin/.libs/sealprov.so"
for f in "$load" "$plugin"; do [ -e "$f" ] || { echo "shared-image-mem: $f not built" >&2; exit 1; }; done

meminfo() { awk -v k="$1:" '$1 == k { printf "%.0f\n", $2 * 1024 }' /proc/meminfo; } # bytes
gb() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1e9 }'; }
# the sum of FIELD (Rss or Pss) over the pids, in bytes
sum_of() {
  f=$1
  shift
  for p in "$@"; do cat "/proc/$p/smaps_rollup" 2>/dev/null; done | awk -v k="$f:" '$1 == k { s += $2 } END { printf "%.0f\n", s * 1024 }'
}
ini() { # MODE DEVICE(cpu|gpu) THREADS
  {
    printf '[provider]\nparams_validation_cache = %s\n' "$records"
    [ "$1" = off ] || printf 'params_shared_image = %s\n' "$1"
    if [ "$2" = gpu ]; then printf '[gpu0]\ntype = cuda\ndevice = 0\n'; else printf '[cpu0]\ntype = cpu\nthreads = %s\n' "$3"; fi
  } >"$out/c.ini"
}

# a validation record first, made on the GPU (the cpu children would check every point)
if ! ls "$records/validated/"*.rec >/dev/null 2>&1; then
  ini off gpu 0
  SEALPROV_PLUGIN=$plugin SEALPROV_CONFIG="$out/c.ini" SEALPROV_C2_LOG_LEVEL=info "$load" "$params" \
    >"$out/validate.out" 2>"$out/validate.err" || { cat "$out/validate.err"; exit 1; }
fi

ncpu=$(nproc)
printf '%-5s %8s %10s %12s %12s %12s %14s %10s %10s\n' mode children load_s rss_sum_GB pss_sum_GB \
  peak_rss_GB memavail_drop_GB shmem_GB cached_GB >"$out/rows.txt"
for mode in ${MODES:-off}; do
  for n in ${CHILDREN:-1 2 4}; do
    [ "${DROP:-0}" = 1 ] && { sync; echo 3 >/proc/sys/vm/drop_caches; }
    ini "$mode" cpu $(((ncpu + n - 1) / n))
    h="$out/hold-$mode-$n"
    rm -rf "$h"
    mkdir -p "$h"
    avail0=$(meminfo MemAvailable) shmem0=$(meminfo Shmem) cached0=$(meminfo Cached)
    pids=
    i=1
    while [ "$i" -le "$n" ]; do
      SEALPROV_PLUGIN=$plugin SEALPROV_CONFIG="$out/c.ini" SEALPROV_C2_LOG_LEVEL=info \
        "$load" --hold "$h" "$params" >"$out/$mode-$n-$i.out" 2>"$out/$mode-$n-$i.err" &
      pids="$pids $!"
      i=$((i + 1))
    done
    peak=0
    while [ "$(find "$h" -name 'loaded.*' | wc -l)" -lt "$n" ]; do
      alive=0
      for p in $pids; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
      [ "$alive" -eq "$n" ] || { touch "$h/release"; echo "shared-image-mem: a child failed: $out/$mode-$n-*.err" >&2; exit 1; }
      # shellcheck disable=SC2086 # pids is a list of words
      r=$(sum_of Rss $pids)
      [ "$r" -gt "$peak" ] && peak=$r
      sleep 0.5
    done
    # shellcheck disable=SC2086 # pids is a list of words
    rss=$(sum_of Rss $pids) pss=$(sum_of Pss $pids)
    [ "$rss" -gt "$peak" ] && peak=$rss
    avail1=$(meminfo MemAvailable) shmem1=$(meminfo Shmem) cached1=$(meminfo Cached)
    touch "$h/release"
    for p in $pids; do wait "$p" || { echo "shared-image-mem: child $p failed" >&2; exit 1; }; done
    slow=$(cat "$out/$mode-$n-"*.out | sed -n 's/.*"create_SRS_s": \([0-9.]*\).*/\1/p' | sort -n | tail -1)
    grep -L "validated earlier" "$out/$mode-$n-"*.err | sed 's/^/shared-image-mem: no record used by /' >&2
    printf '%-5s %8s %10s %12s %12s %12s %14s %10s %10s\n' "$mode" "$n" "$slow" "$(gb "$rss")" "$(gb "$pss")" \
      "$(gb "$peak")" "$(gb $((avail0 - avail1)))" "$(gb $((shmem1 - shmem0)))" "$(gb $((cached1 - cached0)))" >>"$out/rows.txt"
  done
done
{
  echo "host memory of concurrent children holding $params ($(stat -c %s "$params") bytes), cpu devices, $(nproc) cores, $(gb $(($(meminfo MemTotal)))) GB"
  cat "$out/rows.txt"
} | tee "$out/shared-image-mem.txt"
