#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# dev/ffiselect-child.sh OUTDIR SHAPE[,SHAPE...] -- each proof type as a whole child of
# Curio's default path (lib/ffiselect: a process per proof that calls create_SRS on the
# parameter file, one 6-argument generate_groth16_proofs_c for all of the proof's
# partitions, and exits), through libsealprov_c2 on one device, with the parameters
# validated once per host:
#   1. the parameters: the kit's INSECURE setup of a sealing-shaped circuit of the
#      type's constraints and inputs (`c2_child shape NAME` says which; bench/shapes.c
#      has the types), its points on the GPU, to DIR/cN-iK.params and .vk. Types of the
#      same circuit (PoRep 32 and 64 GiB and NI-PoRep; SnapDeals 32 and 64 GiB) share the
#      file. The disk holds one circuit's files at a time: those of another are deleted
#      first (a 2^27 file is 47-49 GB).
#   2. one witness of the circuit in WDIR/cN-iK.wit (tmpfs: 16.7 GB at 2^27), made once
#      for the type's runs. Every partition of a child proves that witness with its own r
#      and s (ten different 2^27 witnesses would not fit the host's memory beside the
#      parameters). Making it (circuit, witness, conversion) is not part of Curio's child
#      and is not in the child's columns. WITNESS=memory makes it inside each child
#      instead, timed apart.
#   3. the file read once (cat): the page cache warm, as for dev/validated-load.sh.
#   4. two fresh processes of tests/compat/c2_child: "first" (validation records
#      emptied: every point checked, the record written) and "repeat" (the record used).
#      Each: process start (exec to main), create_SRS, the proving call, exit (drop_SRS
#      and the process's end), the peak RSS from create_SRS on, and every proof verified
#      against the .vk (timed apart). The module's log must say "every point checked"
#      for first and "validated earlier" for repeat.
# Output: OUTDIR/table.md (a row per measured type: docs/PERFORMANCE.md's "whole child"
# table) and each run's JSON and log. The results live in DIR/results too: a step whose
# result is there is not run again, so a call cut short by a time limit is resumed by
# running the same command again on the same machine.
#
# On the GPU machine: B=$(sh dev/device-build.sh) && BUILD=$B sh dev/ffiselect-child.sh
# "$OUT" porep-32g,porep-64g (carry .dist and .deb). Expected on an H200 (16 cores): a
# 2^27 circuit's setup ~95 s, its witness ~110 s, the cat ~6 s; a child: create_SRS ~18.6 s
# first and ~2.9 s repeat, ~1.45 s a partition (PoRep 10: ~15 s, SnapDeals 16: ~20 s,
# NI-PoRep 126: ~183 s). So PoRep 32 GiB with 64 GiB ~330 s; NI-PoRep on PoRep's file
# ~400 s (~610 s with the file to make); SnapDeals 32 and 64 GiB ~340 s; WindowPoSt 32
# and 64 GiB (two circuits) ~490 s; the WinningPoSt types (2^19) some 10 s each.
# Settable: BUILD (else _build), DIR (/tmp/sp-child), WDIR (/dev/shm/sp-child), DEVICE
# (cuda, or cpu: a CPU device, the points of the setup on the CPU: the dry run of
# tests/compat/c2_child.sh), ORDINAL (0), THREADS (all CPUs), SEED, WITNESS (file|memory),
# CLEAN=1 (delete the last circuit's files at the end; by default they stay for a next
# call with a type of the same circuit).
set -eu
out=${1:?usage: ffiselect-child.sh OUTDIR SHAPE[,SHAPE...]}
shapes=${2:?usage: ffiselect-child.sh OUTDIR SHAPE[,SHAPE...]}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# the module links libxxhash: on the GPU machine it comes from .deb (dev/device-env.sh)
[ -d .deb ] && [ "${DEVICE:-cuda}" = cuda ] && . dev/device-env.sh
build=$(cd "${BUILD:-$top/_build}" && pwd)
child=$build/tests/compat/c2_child
plugin=$build/plugin/.libs/sealprov.so
for f in "$child" "$plugin"; do
  [ -e "$f" ] || { echo "ffiselect-child: $f not built (BUILD=\$(sh dev/device-build.sh))" >&2; exit 2; }
done
dir=${DIR:-/tmp/sp-child}
wdir=${WDIR:-/dev/shm/sp-child}
res=$dir/results
device=${DEVICE:-cuda}
threads=${THREADS:-$(nproc)}
seed=${SEED:-1583464477}
wseed=$((seed + 1))
mkdir -p "$out" "$dir" "$wdir" "$res"
now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a - b }'; } # A - B
field() { sed -n "s/.*\"$2\": \"*\([^,\"}]*\).*/\1/p" "$1"; }      # FILE KEY: a JSON field
die() { echo "ffiselect-child: $*" >&2; exit 1; }

if [ "$device" = cuda ]; then
  dev_ini=$(printf '[gpu0]\ntype = cuda\ndevice = %s\n' "${ORDINAL:-0}")
  gpu_opt="--gpu ${ORDINAL:-0}"
else
  dev_ini=$(printf '[cpu0]\ntype = cpu\nthreads = %s\n' "$threads")
  gpu_opt=
fi
printf '[provider]\nparams_validation_cache = %s/records\n%s\n' "$dir" "$dev_ini" >"$out/child.ini"

warm=
# run NAME RUN KEY PARTS EXPECT: one child; its JSON in $res/NAME.RUN.json
run() {
  nm=$1 rn=$2 ky=$3 pt=$4 ex=$5
  j=$res/$nm.$rn.json
  [ -s "$j" ] && { echo "$nm $rn: measured already ($j)"; return 0; }
  [ "$rn" = first ] && rm -rf "$dir/records"
  if [ "${WITNESS:-file}" = file ]; then
    set -- --witness "$wdir/$ky.wit"
  else
    set -- --constraints "$n" --inputs "$k" --seed "$seed" --wseed "$wseed"
  fi
  a=$(now)
  SEALPROV_PLUGIN=$plugin SEALPROV_CONFIG=$out/child.ini SEALPROV_C2_LOG_LEVEL=info \
    "$child" prove --partitions "$pt" --threads "$threads" "$@" "$dir/$ky.params" "$dir/$ky.vk" \
    >"$j.part" 2>"$out/$nm.$rn.err" || { tail -5 "$out/$nm.$rn.err"; die "$nm $rn: the child failed"; }
  b=$(now)
  grep -q "$ex" "$out/$nm.$rn.err" ||
    { tail -5 "$out/$nm.$rn.err"; die "$nm $rn: no \"$ex\" in the module's log"; }
  sed "s/}\$/, \"t_exec\": $a, \"t_exit\": $b}/" "$j.part" >"$j"
  rm -f "$j.part"
  echo "$nm $rn: $(cat "$j")"
}

# cols JSON: "start, create_SRS, prove, exit (total)" of one child
cols() {
  awk -v e="$(field "$1" t_exec)" -v m="$(field "$1" t_main)" -v l="$(field "$1" t_last)" \
    -v x="$(field "$1" t_exit)" -v c="$(field "$1" create_SRS_s)" -v p="$(field "$1" prove_s)" \
    -v d="$(field "$1" drop_SRS_s)" 'BEGIN {
      s = m - e; q = d + x - l
      printf "%.2f, %.2f, %.2f, %.2f s (%.1f s)", s, c, p, q, s + c + p + q }'
}
gb() { awk -v b="$1" 'BEGIN { printf "%.2f GB", b / 1e9 }'; }

for spec in $(echo "$shapes" | tr ',' ' '); do
  line=$("$child" shape "$spec") || die "$spec: not a proof type"
  # shellcheck disable=SC2086 # NAME CONSTRAINTS INPUTS PARTITIONS LOG_DOMAIN
  set -- $line
  name=$1 n=$2 k=$3 parts=$4 log=$5
  key=c$n-i$k
  if [ -s "$res/$name.row" ]; then echo "$name: measured already ($res/$name.row)"; continue; fi
  # one circuit's files at a time
  find "$dir" "$wdir" -maxdepth 1 -name 'c*-i*.*' ! -name "$key.*" -exec rm -f {} +
  if [ ! -s "$dir/$key.made" ]; then
    rm -f "$dir/$key.params" "$dir/$key.vk" "$res/$name".*
    a=$(now)
    # shellcheck disable=SC2086 # gpu_opt: empty or two words
    "$child" setup --constraints "$n" --inputs "$k" --seed "$seed" --threads "$threads" $gpu_opt \
      "$dir/$key.params" "$dir/$key.vk" >"$out/$key.setup.log" 2>&1 ||
      { tail -5 "$out/$key.setup.log"; die "$name: setup of $key failed"; }
    sub "$(now)" "$a" >"$dir/$key.made"
    echo "$name: setup of $key: $(cat "$dir/$key.made") s"
  fi
  if [ "${WITNESS:-file}" = file ] && [ ! -s "$wdir/$key.wit" ]; then
    "$child" witness --constraints "$n" --inputs "$k" --seed "$seed" --wseed "$wseed" \
      --threads "$threads" "$wdir/$key.wit" >"$dir/$key.wjson" 2>"$out/$key.witness.log" ||
      { tail -5 "$out/$key.witness.log"; die "$name: witness of $key failed"; }
    echo "$name: witness of $key: $(cat "$dir/$key.wjson")"
  fi
  if [ "$warm" != "$key" ]; then
    a=$(now)
    cat "$dir/$key.params" >/dev/null
    echo "$name: page cache: cat of $key.params $(sub "$(now)" "$a") s"
    warm=$key
  fi
  run "$name" first "$key" "$parts" "every point checked"
  run "$name" repeat "$key" "$parts" "validated earlier"
  f=$res/$name.first.json r=$res/$name.repeat.json
  for j in "$f" "$r"; do
    [ "$(field "$j" verified)" = "$parts" ] || die "$name: $(field "$j" verified) of $parts proofs verify ($j)"
  done
  wit=$(field "$f" witness)
  if [ "$wit" = file ]; then
    wnote="one in a file, $(gb "$(field "$f" witness_bytes)"), made in $(field "$dir/$key.wjson" witness_s) s"
  else
    wnote="one in memory, $(gb "$(field "$f" witness_bytes)"), made in $(field "$f" witness_s) s"
  fi
  printf '| %s | %s | %s (2^%s), %s inputs | %s | %s / %s s | %s | %s | %s / %s | %s of %s | %s |\n' \
    "$name" "$parts" "$n" "$log" "$k" "$(gb "$(stat -c %s "$dir/$key.params")")" \
    "$(field "$f" create_SRS_s)" "$(field "$r" create_SRS_s)" "$(cols "$f")" "$(cols "$r")" \
    "$(gb "$(field "$f" peak_rss_bytes)")" "$(gb "$(field "$r" peak_rss_bytes)")" \
    "$(field "$r" verified)" "$parts" "$wnote" >"$res/$name.row"
  cp "$f" "$r" "$out/"
  cat "$res/$name.row"
done
# the last circuit's files stay for the next call (a type of the same circuit reuses
# them); CLEAN=1 deletes them
[ -n "${CLEAN:-}" ] && find "$dir" "$wdir" -maxdepth 1 -name 'c*-i*.*' -exec rm -f {} +
{
  echo "| proof type | partitions | circuit: constraints (domain), inputs | parameter file | load (first / repeat) | child, first: start, create_SRS, prove, exit (total) | child, repeat: start, create_SRS, prove, exit (total) | child peak RSS (first / repeat) | proofs verified | witness (all partitions) |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for spec in $(echo "$shapes" | tr ',' ' '); do
    # shellcheck disable=SC2046 # NAME ...
    set -- $("$child" shape "$spec")
    [ -s "$res/$1.row" ] && cat "$res/$1.row"
  done
} >"$out/table.md"
cat "$out/table.md"
