#!/bin/bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# capacity-table.sh OUTDIR [GIB...] -- fills the table "Which partition a card proves"
# of docs/configuration.md on a GPU machine (GPU 0), one row per card memory in GiB
# (default: 16 24 32 40 48 80 141; 141, or anything the GPU does not have, is the
# whole GPU with no memory_limit), each standing in for a smaller card through
# memory_limit:
#   model     `sealprov devices --json` with [gpu0] memory_limit = GIB: the largest
#             sealing-shaped partition (log2 of its domain) the module's capacity model
#             lets the GPU prove with its parameters resident, resident with a
#             fixed-base table, and streamed
#   measured  `sealprov bench gpu --partition K --memory-limit GIBG --json` (synthetic
#             sealing-shaped parameters and inputs made on the GPU; the engine keeps the
#             parameters resident or streams them as in the module) for the largest
#             resident K (tables off, and on when a table fits there) and the largest
#             streamed K: the median execute time, whether the run streamed, and its
#             out-of-memory retries (a model that fits must need none)
# Sizes above MAXK (default 27, a 32 GiB sector's partition; bench gpu takes up to 28)
# are measured at MAXK. Results: OUTDIR/table.md (markdown rows), OUTDIR/GIB-*.json and
# logs; exit status 0 when every run passed. One row takes a few minutes at 2^27: run a
# few sizes per call (e.g. `bash dev/capacity-table.sh "$OUT" 16 24`).
# The module and CLI: BUILD, a --with-cuda build (default this tree's _build). On the
# GPU machine, from the release tarball in .dist/ and the packages in .deb/
# (dev/device-build.sh says how; its build takes minutes):
#   BUILD=$(sh dev/device-build.sh) bash dev/capacity-table.sh "$OUT" 16 24
# REPEAT: runs per measurement (default 3).
set -u
out=${1:?usage: bash dev/capacity-table.sh OUTDIR [GIB...]}
shift
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
build=${BUILD:-$top/_build}
sealprov=$build/tools/sealprov
[ -x "$sealprov" ] || { echo "capacity-table.sh: no $sealprov: set BUILD to a --with-cuda build (dev/device-build.sh)" >&2; exit 2; }
sizes=${*:-16 24 32 40 48 80 141}
maxk=${MAXK:-27}
repeat=${REPEAT:-3}
rc=0
table=$out/table.md
[ -f "$table" ] || printf '| card memory | resident (tables) | streamed | H200 execute, resident: tables off / on | H200 execute, streamed |\n|---|---|---|---|---|\n' > "$table"

# bench RUN K GIB PRECOMPUTE: one bench gpu run; prints "median_ms streamed retries" per
# result (one per precompute variant)
bench() {
  lim=
  [ "$3" -lt 141 ] && lim="--memory-limit ${3}G"
  # shellcheck disable=SC2086
  if ! "$sealprov" bench gpu --json --msm-g1 none --msm-g2 none --ntt none --partition "$2" \
      --repeat "$repeat" --precompute "$4" $lim > "$out/$3-$1.json" 2> "$out/$3-$1.log"; then
    echo "FAIL: bench gpu --partition $2 $lim (see $out/$3-$1.log)" >&2
    rc=1
    return
  fi
  paste -d' ' <(grep -o '"median_ms": [0-9.]*' "$out/$3-$1.json" | awk '{print $2}') \
    <(grep -o '"streamed": [a-z]*' "$out/$3-$1.json" | awk '{print $2}') \
    <(grep -o '"oom_retries": [0-9]*' "$out/$3-$1.json" | awk '{print $2}')
}

for g in $sizes; do
  ini=$out/$g.ini
  printf '[gpu0]\ntype = cuda\ndevice = 0\n' > "$ini"
  [ "$g" -lt 141 ] && printf 'memory_limit = %sGiB\n' "$g" >> "$ini"
  if ! "$sealprov" devices --json -c "$ini" > "$out/$g-devices.json" 2> "$out/$g-devices.log"; then
    echo "FAIL: sealprov devices -c $ini (see $out/$g-devices.log)" >&2
    rc=1
    continue
  fi
  read -r kr kt ks < <(sed -n 's/.*"resident": \(-*[0-9]*\), "tables": \(-*[0-9]*\), "streamed": \(-*[0-9]*\).*/\1 \2 \3/p' "$out/$g-devices.json")
  if [ -z "${ks:-}" ]; then
    echo "FAIL: no largest_partition in $out/$g-devices.json (a module older than ABI 1.4?)" >&2
    rc=1
    continue
  fi
  echo "$g GiB: the model's largest partition: resident 2^$kr, with a table 2^$kt, streamed 2^$ks"
  mr=$kr ms=$ks
  [ "$mr" -gt "$maxk" ] && mr=$maxk
  [ "$ms" -gt "$maxk" ] && ms=$maxk
  pre=off
  [ "$kt" -ge "$mr" ] && pre=off,on
  res=$(bench resident "$mr" "$g" "$pre")
  str=
  [ "$ms" -gt "$mr" ] && str=$(bench streamed "$ms" "$g" off)
  # shellcheck disable=SC2086 # one line per variant, joined
  echo "  resident 2^$mr (median ms, streamed, out-of-memory retries per variant):" $res
  # shellcheck disable=SC2086
  echo "  streamed 2^$ms:" ${str:-(the same size as resident)}
  fmt() { # "median streamed retries" lines -> "X ms[ (streamed)][, N retries]" / ...
    awk '{s = sprintf("%.0f ms", $1); if ($2 == "true") s = s " (streamed)";
          if ($3 > 0) s = s ", " $3 " out-of-memory retries"; printf "%s%s", (NR > 1 ? " / " : ""), s}'
  }
  printf '| %s GiB | 2^%s (2^%s) | 2^%s | 2^%s: %s | %s |\n' "$g" "$kr" "$kt" "$ks" "$mr" \
    "$(echo "$res" | fmt)" "$( [ -n "$str" ] && printf '2^%s: %s' "$ms" "$(echo "$str" | fmt)")" >> "$table"
done
cat "$table"
exit $rc
