#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# dev/validated-load.sh [DIR] -- on the GPU machine (any working directory): a .params
# file validated once per host, measured the way Curio's default path loads it (one
# child process per proof, each calling create_SRS of libsealprov_c2 once).
#   1. the CUDA build of the release tarball carried in .dist/ (carry .dist and .deb;
#      dev/device-build.sh says how to make the tarball, builds it and its test programs,
#      tests/compat/c2_load among them, and brings an earlier build up to date), or
#      BUILD, a build directory of one. .deb/ must carry libxxhash0 and libxxhash-dev
#      besides libinih, check and subunit (dev/device-env.sh: the machine has no network).
#   2. DIR/full.params (default DIR /tmp/sp-fullsize, K = 27: 49.18 GB) made by the GPU
#      setup: KEEP=1 PARTS=0 dev/fullsize.sh K DIR, with the build of step 1. A file this
#      script made before is used again (DIR/full.made says it is whole); REUSE=1 takes
#      DIR/full.params of an earlier KEEP=1 run of dev/fullsize.sh.
#   3. the file read once (cat > /dev/null): the page cache warm, and how long that took.
#   4. fresh processes, each one create_SRS of DIR/full.params on [gpu0] (CUDA ordinal 0:
#      the direct load) with SEALPROV_C2_LOG_LEVEL=info:
#        first     records in DIR/records, emptied first: every point checked, a
#                  validation record written
#        repeat-N  REPEAT of them (default 3): the record used, the digest verified
#        nochecks  params_subgroup_check = false: decoding and the on-curve checks, no
#                  digest, no record (the floor a repeat load adds its digest to)
#      Each run's create_SRS time, the process's wall time and its log line; the digest's
#      thread time from the log, and repeat minus nochecks.
# Each step is skipped when its result is there, so a call cut short by a time limit is
# resumed by running the same command again. K=24 makes a 6 GB file for a quick try;
# PARAMS=FILE measures FILE instead of making one, DEVICE=cpu on a CPU device (a dry run
# of the script on a machine without a GPU).
# Output: the table on stdout; with OUT set, also OUT/validated-load.txt and the logs.
set -eu
cd "$(dirname "$0")/.."
dir=${1:-/tmp/sp-fullsize}
k=${K:-27}
repeat=${REPEAT:-3}
out=${OUT:-/tmp/sp-validated-out}
mkdir -p "$out" "$dir"
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a - b }'; } # A - B

# 1. the build (device-build.sh sources dev/device-env.sh for .deb/'s libraries; this
# script's own processes need them too: the module is linked against libxxhash)
[ -d .deb ] && . dev/device-env.sh
if [ -n "${BUILD:-}" ]; then build=$(cd "$BUILD" && pwd); else build=$(OUT=$out sh dev/device-build.sh); fi
for f in tests/compat/c2_load plugin/.libs/sealprov.so; do
  [ -e "$build/$f" ] || { echo "validated-load: $build/$f not built" >&2; exit 1; }
done

# 2. the parameter file
params=${PARAMS:-$dir/full.params}
if [ -z "${PARAMS:-}" ] && [ ! -f "$dir/full.made" ] && [ -z "${REUSE:-}" ]; then
  rm -f "$params" "$dir/full.vk" # a run cut short may have left part of them
  BUILD=$build KEEP=1 PARTS=0 OUT=$out bash dev/fullsize.sh "$k" "$dir" >"$out/fullsize.log" 2>&1 ||
    { tail -30 "$out/fullsize.log"; exit 1; }
  touch "$dir/full.made"
fi
bytes=$(stat -c %s "$params")

# 3. the page cache
t0=$(date +%s.%N)
cat "$params" >/dev/null
t1=$(date +%s.%N)

# 4. fresh processes through create_SRS
ini() { # CHECKS(true|false)
  printf '[provider]\nparams_subgroup_check = %s\nparams_validation_cache = %s/records\n' \
    "$1" "$dir" >"$out/c2.ini"
  if [ "${DEVICE:-cuda}" = cpu ]; then
    printf '[cpu0]\ntype = cpu\n' >>"$out/c2.ini"
  else
    printf '[gpu0]\ntype = cuda\ndevice = 0\n' >>"$out/c2.ini"
  fi
}
run() { # NAME
  a=$(date +%s.%N)
  SEALPROV_PLUGIN="$build/plugin/.libs/sealprov.so" SEALPROV_CONFIG="$out/c2.ini" \
    SEALPROV_C2_LOG_LEVEL=info "$build/tests/compat/c2_load" "$params" >"$out/$1.out" 2>"$out/$1.err" ||
    { cat "$out/$1.err"; echo "validated-load: $1 failed" >&2; exit 1; }
  b=$(date +%s.%N)
  srs=$(sed -n 's/.*"create_SRS_s": \([0-9.]*\).*/\1/p' "$out/$1.out")
  how=$(grep -o 'validated earlier.*\|every point checked.*\|validation records not used.*' "$out/$1.err" | head -1)
  [ -n "$how" ] || how=$(grep -o 'direct load: .*\|host load.*' "$out/$1.err" | tail -1)
  printf '%-10s %9s s %9s s  %s\n' "$1" "$srs" "$(sub "$b" "$a")" "$how" >>"$out/runs.txt"
}
rm -rf "$dir/records" "$out/runs.txt"
ini true
run first
i=1
while [ "$i" -le "$repeat" ]; do run "repeat-$i"; i=$((i + 1)); done
ini false
run nochecks

{
  echo "validated once per host: $params ($bytes bytes), ${DEVICE:-cuda} device: $(nvidia-smi -L 2>/dev/null | head -1)"
  echo "page cache: cat of the file $(sub "$t1" "$t0") s"
  printf '%-10s %11s %11s  %s\n' run create_SRS process "how (the module's log)"
  cat "$out/runs.txt"
  rep=$(awk '$1 ~ /^repeat-/ { s += $2; n++ } END { if (n) printf "%.3f", s / n }' "$out/runs.txt")
  floor=$(awk '$1 == "nochecks" { print $2 }' "$out/runs.txt")
  dig=$(sed -n 's/.*digest verified (\([0-9.]*\) s of thread time.*/\1/p' "$out"/repeat-*.err |
    awk '{ s += $1; n++ } END { if (n) printf "%.2f", s / n }')
  echo "repeat load (mean of $repeat): $rep s; nochecks: $floor s; repeat - nochecks: $(sub "$rep" "$floor") s"
  echo "digest: $dig s of reading threads' time per load (mean, from the log)"
} | tee "$out/validated-load.txt"
