#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# c2_shared_image.sh -- one copy of the parameters per host ([provider]
# params_shared_image), through create_SRS in fresh processes as Curio's ffiselect
# children make it (c2_load), on a CPU device: two children started at once each hold
# the set (c2_load --hold), one made the image and the other mapped it; a later
# `sealprov prove --json` says the set came from the image (params_memory "image", its
# path and bytes), and its proofs are the bytes of a run without the image and verify.
set -u
: "${top_builddir:?run through make check}" "${top_srcdir:?run through make check}"
: "${SEALPROV_PLUGIN:?SEALPROV_PLUGIN is not set (make check sets it)}"
SP="$top_builddir/tools/sealprov"
LOAD="$top_builddir/tests/compat/c2_load"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }
test -x "$LOAD" || { echo "SKIP: $LOAD not built"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/sp_c2shm_XXXXXX") || exit 1
trap 'touch "$T/hold/release" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
fails=0
. "$top_srcdir/tests/tools/cli_lib.sh" # fail

"$SP" setup --constraints 300 --inputs 4 --partitions 2 --seed 13 --out "$T/p" >"$T/setup.out" 2>&1 ||
  { cat "$T/setup.out"; echo "FAIL: sealprov setup"; exit 1; }
ini() { # FILE IMAGE(off|folder)
  printf '[provider]\nparams_validation_cache = %s\nparams_shared_image = %s\n[cpu0]\ntype = cpu\nthreads = 1\n' \
    "$T/store" "$2" >"$1"
}
ini "$T/on.ini" "$T/images"
ini "$T/off.ini" off

# two children at once: both hold the set, one image between them
mkdir "$T/hold"
child() { # I
  SEALPROV_CONFIG="$T/on.ini" SEALPROV_C2_LOG_LEVEL=info "$LOAD" --touch --hold "$T/hold" \
    "$T/p/circuit.params" >"$T/c$1.out" 2>"$T/c$1.err"
}
child 1 &
pid1=$!
child 2 &
pid2=$!
n=0
while [ "$(find "$T/hold" -name 'loaded.*' | wc -l)" -lt 2 ] && [ "$n" -lt 600 ]; do
  kill -0 "$pid1" 2>/dev/null || break
  kill -0 "$pid2" 2>/dev/null || break
  sleep 0.1
  n=$((n + 1))
done
[ "$(find "$T/hold" -name 'loaded.*' | wc -l)" -eq 2 ] || fail "the two children did not both load"
touch "$T/hold/release"
wait "$pid1" || { cat "$T/c1.err"; fail "child 1 failed"; }
wait "$pid2" || { cat "$T/c2.err"; fail "child 2 failed"; }
made=$(grep -l "shared image .* made (" "$T"/c?.err | wc -l)
mapped=$(grep -l "shared image .* mapped (" "$T"/c?.err | wc -l)
if [ "$made" -ne 1 ] || [ "$mapped" -ne 1 ]; then
  cat "$T"/c?.err
  fail "made by $made child(ren), mapped by $mapped: want 1 and 1"
fi
ls "$T/images/"*.img >/dev/null 2>&1 || fail "no image in $T/images"
# each child read every page of the image it maps (c2_load --touch): both map it
for i in 1 2; do
  grep -q '"touched_bytes": [1-9]' "$T/c$i.out" || fail "child $i maps no image: $(cat "$T/c$i.out")"
done

# the CLI's report of the load, and the proofs with and without the image
prove() { # INI OUT
  "$SP" prove -c "$1" --params "$T/p/circuit.params" --out "$2" --zero-rs --json \
    "$T/p/partition-00.spa" "$T/p/partition-01.spa" >"$2.json" 2>"$2.err" ||
    { cat "$2.err" "$2.json"; fail "prove -c $1"; }
}
prove "$T/on.ini" "$T/on.proofs"
prove "$T/off.ini" "$T/off.proofs"
grep -q '"params_memory": "image", "params_image": "'"$T"'/images/[0-9a-f]*\.img", "params_host_bytes": [1-9]' \
  "$T/on.proofs.json" || fail "prove with the image: $(cat "$T/on.proofs.json")"
grep -q '"params_memory": "own", "params_image": "", "params_host_bytes": [1-9]' "$T/off.proofs.json" ||
  fail "prove without the image: $(cat "$T/off.proofs.json")"
cmp -s "$T/on.proofs" "$T/off.proofs" || fail "the proofs differ with and without the image"
"$SP" verify --vk "$T/p/circuit.vk" --proofs "$T/on.proofs" "$T/p/partition-00.spa" \
  "$T/p/partition-01.spa" >"$T/verify.out" 2>&1 || { cat "$T/verify.out"; fail "verify"; }

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: two children, one image made and one mapped; prove reports the image; same proofs without it"
