#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# dev/shared-image-mem.sh [PARAMS] -- on the GPU machine: the host memory that 1, 2 and 4
# concurrent children hold, each a fresh process that loads PARAMS (default
# /tmp/sp-fullsize/full.params, the 2^27 file of dev/validated-load.sh) through
# create_SRS of libsealprov_c2 on a cpu device, as Curio's per-proof children would
# where the set lives on the host, and keeps it until every child has loaded
# (tests/compat/c2_load --touch --hold: a child that maps a shared image reads a byte of
# each of its pages, as a proof reading every point would, so the image counts in its
# Rss and Pss). CPU devices stand in for the children's GPUs: the machine has one GPU.
#   BUILD     a build directory with tests/compat/c2_load and plugin/.libs/sealprov.so
#             (default: dev/device-build.sh makes one, or brings dev/validated-load.sh's
#             up to date)
#   RECORDS   the validation record store (default: PARAMS's folder/records, where
#             dev/validated-load.sh keeps it): when it has no record of PARAMS, one
#             child on [gpu0] validates the file first (the direct load, ~19 s), so
#             that the cpu children skip the subgroup checks (decoding and the on-curve
#             checks remain: the children's load time)
#   CHILDREN  the counts to measure (default "1 2 4")
#   MODES     "off on" (default): [provider] params_shared_image = off (today's
#             per-process load), then on (auto, or IMAGES): the children share one image
#   IMAGES    the image folder for "on" (default /dev/shm/sealprov-EUID, as auto); the
#             images in it are removed before each "on" run (so one child makes the
#             image while the others wait for it and map it) and at the end
#             (KEEP_IMAGE=1 keeps the last)
#   DEVICE=cpu  the record made on a cpu device, and no GPU check (a dry run on a machine
#             without a GPU)
#   MARGIN_GB host memory left free beyond each case's need (default 8)
#   DROP=1    drop the page cache before each run (root), so Cached starts from the floor
# First, a GPU check (unless DEVICE=cpu): a small set proved twice on [gpu0] with
# params_residency = host and an image in OUT/gpu-images, by `sealprov prove --json`: the
# first makes the image, the second maps it and uploads its resident copy from the
# read-only mapping (cudaMemcpy from pageable memory: the mapping is not registered);
# both proof files must be equal and verify. Then the children.
# A case the host cannot hold is skipped, and the table says why, rather than pushing
# the machine into the OOM killer: "off" with N children needs N decoded copies (about
# the file's size each) within MemAvailable; "on" needs one, in a folder with room for
# it (as root, a /dev/shm too small for the image is remounted with room: tmpfs takes
# memory only as it is written). Per run: the children's slowest create_SRS, and once
# all have loaded and touched their pages the sum of their Rss and Pss
# (/proc/PID/smaps_rollup), its peak while they loaded, and the host's MemAvailable
# drop, Shmem and Cached growth against the figures before the children started; the
# last column says what the children's logs say they did (made, mapped, own copy).
# Output: the table on stdout and in OUT/shared-image-mem.txt (OUT default
# /tmp/sp-shimage-out), the children's logs in OUT. About 3 minutes for the 2^27 file on
# the H200 host (16 cores) once the build and the record are there.
set -eu
cd "$(dirname "$0")/.."
params=${1:-/tmp/sp-fullsize/full.params}
out=${OUT:-/tmp/sp-shimage-out}
records=${RECORDS:-$(dirname "$params")/records}
images=${IMAGES:-/dev/shm/sealprov-$(id -u)}
margin=$((${MARGIN_GB:-8} * 1000000000))
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
    [ "$1" = off ] || printf 'params_shared_image = %s\n' "$images"
    [ "$2" = gpu ] || printf 'load_threads = %s\n' "$3"
    if [ "$2" = gpu ]; then printf '[gpu0]\ntype = cuda\ndevice = 0\n'; else printf '[cpu0]\ntype = cpu\nthreads = %s\n' "$3"; fi
  } >"$out/c.ini"
}
free_in() { df -B1 --output=avail "$1" 2>/dev/null | tail -1 | tr -d ' '; } # bytes free
# The image folder with room for one image (bytes $1): true, or false with why in $why.
image_room() {
  if ! mkdir -p "$images" || ! chmod 700 "$images"; then
    why="cannot make $images"
    return 1
  fi
  avail=$(free_in "$images")
  [ "${avail:-0}" -ge "$1" ] && return 0
  case $images in
    /dev/shm/*)
      if [ "$(id -u)" = 0 ]; then
        size=$(($(df -B1 --output=size /dev/shm | tail -1 | tr -d ' ') + $1 - avail + 1000000000))
        if mount -o remount,size="$size" /dev/shm 2>"$out/remount.err"; then
          echo "shared-image-mem: /dev/shm remounted with size=$(gb "$size") GB (it had $(gb "$avail") GB free)" >&2
          return 0
        fi
      fi
      ;;
  esac
  why="$images has $(gb "${avail:-0}") GB free, the image needs $(gb "$1") (mount -o remount,size=... /dev/shm as root, or IMAGES=a larger tmpfs or hugetlbfs folder)"
  return 1
}

# a validation record first, made on the GPU (the cpu children would check every point)
if ! ls "$records/validated/"*.rec >/dev/null 2>&1; then
  ini off "${DEVICE:-gpu}" "$(nproc)"
  SEALPROV_PLUGIN=$plugin SEALPROV_CONFIG="$out/c.ini" SEALPROV_C2_LOG_LEVEL=info "$load" "$params" \
    >"$out/validate.out" 2>"$out/validate.err" || { cat "$out/validate.err"; exit 1; }
fi

# the GPU check: a proof from a mapped image on the GPU, the same bytes as the first
if [ "${DEVICE:-gpu}" != cpu ]; then
  g="$out/gpu-check"
  rm -rf "$g" "$out/gpu-images"
  "$build/tools/sealprov" setup --constraints 100000 --inputs 4 --partitions 2 --out "$g" >"$out/gpu-setup.log" 2>&1 ||
    { tail "$out/gpu-setup.log"; exit 1; }
  printf '[provider]\nparams_residency = host\nparams_validation_cache = %s\nparams_shared_image = %s\n[gpu0]\ntype = cuda\ndevice = 0\n' \
    "$out/gpu-records" "$out/gpu-images" >"$out/gpu.ini"
  for i in 1 2; do
    SEALPROV_PLUGIN=$plugin "$build/tools/sealprov" prove -c "$out/gpu.ini" --params "$g/circuit.params" \
      --out "$g/proofs-$i" --zero-rs --json "$g"/partition-0*.spa >"$g/prove-$i.json" 2>"$g/prove-$i.err" ||
      { cat "$g/prove-$i.err" "$g/prove-$i.json"; exit 1; }
  done
  grep -q '"params_memory": "image"' "$g/prove-2.json" || { echo "shared-image-mem: GPU check: the second prove did not map the image: $(cat "$g/prove-2.json")" >&2; exit 1; }
  cmp "$g/proofs-1" "$g/proofs-2" || { echo "shared-image-mem: GPU check: the proofs differ" >&2; exit 1; }
  SEALPROV_PLUGIN=$plugin "$build/tools/sealprov" verify --vk "$g/circuit.vk" --proofs "$g/proofs-2" "$g"/partition-0*.spa \
    >"$g/verify.out" 2>&1 || { cat "$g/verify.out"; exit 1; }
  echo "GPU check: proofs on [gpu0] from a mapped shared image (params_residency = host) equal the first and verify" >"$out/gpu-check.txt"
  rm -rf "$out/gpu-images"
fi

size=$(stat -c %s "$params") # a decoded copy, or the image, is about the file's size
ncpu=$(nproc)
row() { printf '%-4s %8s %8s %11s %11s %12s %16s %9s %10s  %s\n' "$@" >>"$out/rows.txt"; }
: >"$out/rows.txt"
row mode children load_s rss_sum_GB pss_sum_GB peak_rss_GB memavail_drop_GB shmem_GB cached_GB "what the children did"
for mode in ${MODES:-off on}; do
  [ "$mode" = off ] || [ "$mode" = on ] || { echo "shared-image-mem: MODES takes off and on, not $mode" >&2; exit 2; }
  for n in ${CHILDREN:-1 2 4}; do
    [ "${DROP:-0}" = 1 ] && { sync; echo 3 >/proc/sys/vm/drop_caches; }
    h="$out/hold-$mode-$n"
    rm -rf "$h" "$out/$mode-$n-"*
    if [ "$mode" = on ]; then
      find "$images" -maxdepth 1 -name '*.img' -delete 2>/dev/null || true # one child makes it
    fi
    avail0=$(meminfo MemAvailable) shmem0=$(meminfo Shmem) cached0=$(meminfo Cached)
    copies=$n why=
    if [ "$mode" = on ]; then
      if image_room "$size"; then copies=1; else why="$why; "; fi # no room: n own copies
    fi
    need=$((copies * size + margin))
    if [ "$need" -gt "$avail0" ]; then
      row "$mode" "$n" - - - - - - - "skipped: ${why}$copies decoded copies of $(gb "$size") GB and $(gb "$margin") GB to spare need $(gb "$need") GB, MemAvailable is $(gb "$avail0") GB"
      continue
    fi
    # off: every child decodes, the cores shared among them; on: one decodes, the
    # others wait for it
    if [ "$mode" = off ]; then ini off cpu $(((ncpu + n - 1) / n)); else ini on cpu "$ncpu"; fi
    mkdir -p "$h"
    pids=
    i=1
    while [ "$i" -le "$n" ]; do
      SEALPROV_PLUGIN=$plugin SEALPROV_CONFIG="$out/c.ini" SEALPROV_C2_LOG_LEVEL=info \
        "$load" --touch --hold "$h" "$params" >"$out/$mode-$n-$i.out" 2>"$out/$mode-$n-$i.err" &
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
    grep -L "validated earlier\|shared image .* mapped" "$out/$mode-$n-"*.err | sed 's/^/shared-image-mem: no record or image used by /' >&2
    did="made $(grep -l 'shared image /[^ ]* made (' "$out/$mode-$n-"*.err | wc -l)"
    did="$did, mapped $(grep -l 'shared image /[^ ]* mapped (' "$out/$mode-$n-"*.err | wc -l)"
    did="$did, own copy $(grep -L 'shared image /[^ ]* ma[a-z]* (' "$out/$mode-$n-"*.err | wc -l)"
    row "$mode" "$n" "$slow" "$(gb "$rss")" "$(gb "$pss")" "$(gb "$peak")" "$(gb $((avail0 - avail1)))" \
      "$(gb $((shmem1 - shmem0)))" "$(gb $((cached1 - cached0)))" "$did"
  done
done
[ "${KEEP_IMAGE:-0}" = 1 ] || find "$images" -maxdepth 1 -name '*.img' -delete 2>/dev/null || true
{
  [ -f "$out/gpu-check.txt" ] && cat "$out/gpu-check.txt"
  echo "host memory of concurrent children holding $params ($size bytes), cpu devices, $ncpu cores, $(gb "$(meminfo MemTotal)") GB, image folder $images"
  cat "$out/rows.txt"
} | tee "$out/shared-image-mem.txt"
