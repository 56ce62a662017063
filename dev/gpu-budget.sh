#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# gpu-budget.sh check|bench|stream|refuse|capacity [OUTDIR] [GIB...] -- a partition under
# a device memory budget (`memory_limit` standing in for a smaller card) on one GPU: the
# CUDA engine's memory plan (cuda/backend/plan.c), its streaming through a bounded ring
# of page-locked chunks (cuda/backend/upload.c, tail.c) and the capacity the scheduler
# reads off the plan (cuda/backend/capacity.c).
#   check   the GPU tests: test_cuda_engine --full (every size proved under the exact
#           need of each plan tier, and with a prefix of the set kept on the device,
#           against the CPU engine's proof bytes), test_cuda_kernels (the MSM under a
#           scratch cap, the two-vector H) and test_cuda_capacity (the capacity against
#           the plan; partitions proved under exactly the capacity's streamed bytes),
#           and test_cuda_plan (the plan's ring arithmetic, every tier and size; no GPU
#           needed). Each prints "N checks, 0 failures".
#   bench   `bench gpu` of a sealing-shaped 2^SIZE partition (default 27) on synthetic
#           parameters made on the GPU (no 47 GB file, no .spa), tables off and on, with
#           no limit and under each of LIMITS (default 24G,16G,12G), on the same data:
#           the execute times, the plan, the device peak, the module's host memory peak
#           and the bytes sent to the device per partition, as JSON in OUTDIR/bench.json
#           and one line per result on stdout.
#   stream  the same partition with no limit and the set streamed (--stream): the cost of
#           streaming alone, for the bytes-per-second figure of the copy.
#   refuse  a job too big for the card is refused up front, and proves under the
#           memory_limit the refusal names: `sealprov setup` of a sealing-shaped job of
#           2^SIZE constraints (default 24; 2 partitions, on the GPU), then `sealprov
#           prove` with [gpu0] memory_limit = SMALL (default: half the bytes the job's
#           partitions need, which a first prove under 1MiB reads off its refusal, so
#           the check holds at any SIZE): exit 1 at srs_load
#           with DEVICE_MEMORY, the bytes needed and available and "memory_limit = X or
#           more fits", no partition attempted, no quarantine; then with memory_limit = X:
#           every proof made on the first attempt, no out-of-memory retry, and verified.
#           Prints "refuse: ..." lines and "refuse: passed" (exit 0) or FAIL lines.
#   capacity  the table "Which partition a card proves" of docs/configuration.md, one
#           row per card memory in GiB (the arguments after OUTDIR; default 16 24 32 40
#           48 80 141, 141 or more: the whole GPU, no memory_limit): `sealprov devices
#           --json` under that memory_limit for the capacity (the largest sealing-shaped
#           partition resident, with a fixed-base table and streamed), then `bench gpu`
#           under it for the largest resident size (tables off, and on when a table fits)
#           and the largest streamed one, at most MAXK (default 27): the median execute
#           time, whether it streamed and its out-of-memory retries (a size the capacity
#           admits must need none). OUTDIR/table.md gets the rows. At 2^27 a row takes a
#           few minutes: give a few sizes per call.
# The programs: BUILD (a build tree, as dev/device-build.sh prints: on the GPU machine,
# carry .dist and .deb and run  B=$(sh dev/device-build.sh) && BUILD=$B sh dev/gpu-budget.sh
# check "$OUT"), else this tree's _build (a --with-cuda build): BUILD/tools/sealprov
# bench gpu and BUILD/tests/cuda/. Time on an H200: check a few minutes; bench about
# 35 s to make the parameters, then some 2 s a run (4 runs a variant, 2 variants, 4
# limits). Settable: SIZE, LIMITS, REPEAT (3), THREADS (8, as with 2 workers on 16 CPUs),
# ORDINAL (0), PLAN (a tier of the plan instead of the engine's choice: bench gpu --plan;
# e.g. LIMITS=24G PLAN=3 keeps more of the set on the device for fewer vectors at once),
# TAG (file name, default the mode), SMALL (refuse), MAXK (capacity).
set -u
mode=${1:-bench}
out=${2:-${OUT:-/tmp/sp-budget}}
if [ $# -ge 2 ]; then shift 2; else set --; fi
gibs=${*:-16 24 32 40 48 80 141}
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
default_size=27
[ "$mode" = refuse ] && default_size=24
size=${SIZE:-$default_size}
limits=${LIMITS:-24G,16G,12G}
repeat=${REPEAT:-3}
threads=${THREADS:-8}
maxk=${MAXK:-27}
ordinal=${ORDINAL:-0}
build=${BUILD:-$top/_build}
if [ ! -x "$build/tools/sealprov" ]; then
  echo "gpu-budget.sh: no $build/tools/sealprov: set BUILD (B=\$(sh dev/device-build.sh)) or build _build --with-cuda" >&2
  exit 2
fi
sealprov=$build/tools/sealprov
set -- "$sealprov" bench gpu
tests=$build/tests/cuda
command -v nvidia-smi >/dev/null 2>&1 &&
  nvidia-smi --query-gpu=index,name,memory.total,pcie.link.gen.current,pcie.link.width.current \
    --format=csv,noheader > "$out/gpus.txt" 2>&1
# one line per partition result of the JSON: limit, tables, plan, times, peaks, bytes
summary() {
  tr -d '\n' < "$1" | sed 's/{"op"/\n{"op"/g' | grep '"op": "partition"' | awk '
    function get(k,   s) {
      if (!match($0, "\"" k "\": \"?[^,\"}]*")) return "?"
      s = substr($0, RSTART, RLENGTH); sub(/^[^:]*: "?/, "", s); return s
    }
    { printf "limit %s tables %s: execute median %s ms (min %s), streamed %s, oom retries %s, " \
        "tier %s (needs %s), device peak %s, module host peak %s, prefix %s, pcie %s bytes\n",
        get("memory_limit_bytes"), get("precompute"), get("median_ms"), get("min_ms"),
        get("streamed"), get("oom_retries"), get("plan_tier"), get("plan_need_bytes"),
        get("device_peak_bytes"), get("module_host_peak_bytes"), get("resident_prefix_bytes"),
        get("pcie_bytes") }'
}
# refuse K [SMALL]: the job of 2^K constraints refused under SMALL (none: half of what
# the job needs), proved under what the refusal names
refuse() {
  fail() { echo "refuse: FAIL: $*"; return 1; }
  j=$out/refuse
  "$sealprov" setup --constraints "2^$1" --inputs 4 --partitions 2 --seed 34 --gpu="$ordinal" \
    --force --out "$j" > "$out/refuse-setup.log" 2>&1 || { tail -3 "$out/refuse-setup.log"; fail "setup"; return 1; }
  parts=$(ls "$j"/partition-*.spa)
  small=${2:-}
  if [ -z "$small" ]; then
    # what the job needs, as its refusal under a limit nothing fits in says ("device 0
    # (gpu0) needs N bytes"): a fixed SMALL fits the job once SIZE is small enough
    printf '[gpu0]\ntype = cuda\ndevice = %s\nmemory_limit = 1MiB\n' "$ordinal" > "$out/probe.ini"
    # shellcheck disable=SC2086
    "$sealprov" prove -c "$out/probe.ini" --params "$j/circuit.params" --out "$out/probe.proofs" \
      --json $parts > "$out/probe.out" 2>&1
    need=$(sed -n 's/.* needs \([0-9][0-9]*\) bytes.*/\1/p' "$out/probe.out" | head -1)
    [ -n "$need" ] || fail "no bytes needed in the refusal under memory_limit = 1MiB (see $out/probe.out)" || return 1
    small=$((need / 2))
    echo "refuse: the job needs $need bytes; SMALL = half of it, $small"
  fi
  printf '[gpu0]\ntype = cuda\ndevice = %s\nmemory_limit = %s\n' "$ordinal" "$small" > "$out/small.ini"
  # shellcheck disable=SC2086
  "$sealprov" prove -c "$out/small.ini" --params "$j/circuit.params" --out "$out/small.proofs" \
    --json $parts > "$out/small.out" 2>&1
  r=$?
  echo "refuse: memory_limit = $small: exit $r: $(grep -m1 'device memory' "$out/small.out")"
  [ $r -eq 1 ] || fail "exit $r under memory_limit = $small, expected 1" || return 1
  grep -q 'srs_load: no device of this provider has the memory for a partition' "$out/small.out" ||
    fail "no up-front refusal at srs_load" || return 1
  # every partition "not run", "attempts": 0 (the JSON lists them all)
  grep -qi 'quarantin\|"attempts": [1-9]' "$out/small.out" && { fail "a partition was attempted or a device quarantined"; return 1; }
  fits=$(sed -n 's/.*memory_limit = \([0-9]*[KMG]iB\) or more fits.*/\1/p' "$out/small.out" | head -1)
  [ -n "$fits" ] || fail "the refusal names no memory_limit that fits" || return 1
  printf '[gpu0]\ntype = cuda\ndevice = %s\nmemory_limit = %s\n' "$ordinal" "$fits" > "$out/fits.ini"
  "$sealprov" devices --json -c "$out/fits.ini" > "$out/fits-devices.json" 2>&1
  echo "refuse: memory_limit = $fits: $(grep -o '"largest_partition": {[^}]*}' "$out/fits-devices.json")"
  # shellcheck disable=SC2086
  "$sealprov" prove -c "$out/fits.ini" --params "$j/circuit.params" --out "$out/fits.proofs" \
    --json $parts > "$out/fits.json" 2> "$out/fits.err" || { tail -3 "$out/fits.err"; fail "prove under memory_limit = $fits"; return 1; }
  grep -o '"attempts": [0-9]*' "$out/fits.json" | grep -qv '"attempts": 1' && { fail "a partition took more than one attempt"; return 1; }
  grep -q 'out of memory' "$out/fits.err" "$out/fits.json" && { fail "an out-of-memory retry"; return 1; }
  # shellcheck disable=SC2086
  "$sealprov" verify --vk "$j/circuit.vk" --proofs "$out/fits.proofs" $parts > "$out/verify.out" 2>&1 ||
    { cat "$out/verify.out"; fail "a proof does not verify"; return 1; }
  echo "refuse: memory_limit = $fits: $(echo "$parts" | wc -w) partitions proved on the first attempt and verified"
  echo "refuse: passed"
}

# bench_at TAG K GIB PRECOMPUTE: one bench gpu run under GIB; prints "median_ms streamed
# retries" per result (one per precompute variant)
bench_at() {
  lim=
  [ "$3" -lt 141 ] && lim="--memory-limit ${3}G"
  # shellcheck disable=SC2086
  "$sealprov" bench gpu --json --device "$ordinal" --msm-g1 none --msm-g2 none --ntt none \
    --partition "$2" --repeat "$repeat" --threads "$threads" --precompute "$4" $lim \
    > "$out/$3-$1.json" 2> "$out/$3-$1.log" || { echo "FAIL: bench gpu --partition $2 $lim (see $out/$3-$1.log)" >&2; return 1; }
  tr -d '\n' < "$out/$3-$1.json" | sed 's/{"op"/\n{"op"/g' | grep '"op": "partition"' |
    sed 's/.*"median_ms": \([0-9.]*\).*"streamed": \([a-z]*\).*"oom_retries": \([0-9]*\).*/\1 \2 \3/'
}

# capacity_row GIB: one row of OUTDIR/table.md
capacity_row() {
  g=$1
  ini=$out/$g.ini
  printf '[gpu0]\ntype = cuda\ndevice = %s\n' "$ordinal" > "$ini"
  [ "$g" -lt 141 ] && printf 'memory_limit = %sGiB\n' "$g" >> "$ini"
  "$sealprov" devices --json -c "$ini" > "$out/$g-devices.json" 2> "$out/$g-devices.log" ||
    { echo "FAIL: sealprov devices -c $ini (see $out/$g-devices.log)" >&2; return 1; }
  caps=$(sed -n 's/.*"resident": \(-*[0-9]*\), "tables": \(-*[0-9]*\), "streamed": \(-*[0-9]*\).*/\1 \2 \3/p' "$out/$g-devices.json")
  [ -n "$caps" ] || { echo "FAIL: no largest_partition in $out/$g-devices.json" >&2; return 1; }
  # shellcheck disable=SC2086
  set -- $caps
  kr=$1 kt=$2 ks=$3
  echo "$g GiB: largest partition: resident 2^$kr, with a table 2^$kt, streamed 2^$ks"
  mr=$kr ms=$ks
  [ "$mr" -gt "$maxk" ] && mr=$maxk
  [ "$ms" -gt "$maxk" ] && ms=$maxk
  pre=off
  [ "$kt" -ge "$mr" ] && pre=off,on
  res='' str=''
  [ "$mr" -ge 8 ] && { res=$(bench_at resident "$mr" "$g" "$pre") || return 1; }
  [ "$ms" -gt "$mr" ] && { str=$(bench_at streamed "$ms" "$g" off) || return 1; }
  fmt() { # "median streamed retries" lines -> "X ms[ (streamed)][, N retries]" / ...
    awk '{s = sprintf("%.0f ms", $1); if ($2 == "true") s = s " (streamed)";
          if ($3 > 0) s = s ", " $3 " out-of-memory retries"; printf "%s%s", (NR > 1 ? " / " : ""), s}'
  }
  echo "  resident 2^$mr: $(echo "$res" | fmt); streamed 2^$ms: $(echo "$str" | fmt)"
  printf '| %s GiB | 2^%s (2^%s) | 2^%s | 2^%s: %s | %s |\n' "$g" "$kr" "$kt" "$ks" "$mr" \
    "$(echo "$res" | fmt)" "$([ -n "$str" ] && printf '2^%s: %s' "$ms" "$(echo "$str" | fmt)")" >> "$out/table.md"
}

case "$mode" in
  check)
    rc=0
    "$tests/test_cuda_engine" --full > "$out/test_cuda_engine.log" 2>&1 || rc=1
    tail -1 "$out/test_cuda_engine.log"
    grep -E '^FAIL|budget|prefix' "$out/test_cuda_engine.log" | head -60
    "$tests/test_cuda_kernels" > "$out/test_cuda_kernels.log" 2>&1 || rc=1
    tail -1 "$out/test_cuda_kernels.log"
    grep -E '^FAIL' "$out/test_cuda_kernels.log" | head -20
    "$tests/test_cuda_capacity" > "$out/test_cuda_capacity.log" 2>&1 || rc=1
    grep -E '^FAIL|run [01]:|checks' "$out/test_cuda_capacity.log" | head -30
    "$tests/test_cuda_plan" > "$out/test_cuda_plan.log" 2>&1 || rc=1
    grep -E '^FAIL|checks' "$out/test_cuda_plan.log" | head -20
    exit $rc
    ;;
  bench | stream)
    if [ "$mode" = bench ] && [ -n "${PLAN:-}" ]; then
      extra="--memory-limit $limits --plan $PLAN"
    elif [ "$mode" = bench ]; then
      extra="--memory-limit none,$limits"
    else
      extra="--stream"
    fi
    tag=${TAG:-$mode}
    "$@" --json --device "$ordinal" --msm-g1 none --msm-g2 none --ntt none --partition "$size" \
      --repeat "$repeat" --threads "$threads" --precompute off,on $extra \
      > "$out/$tag.json" 2> "$out/$tag.log"
    rc=$?
    summary "$out/$tag.json" | tee "$out/$tag.txt"
    [ $rc -eq 0 ] || tail -5 "$out/$tag.log"
    exit $rc
    ;;
  refuse)
    refuse "$size" "${SMALL:-}"
    exit $?
    ;;
  capacity)
    rc=0
    table=$out/table.md
    [ -f "$table" ] || printf '| card memory | resident (tables) | streamed | H200 execute, resident: tables off / on | H200 execute, streamed |\n|---|---|---|---|---|\n' > "$table"
    for g in $gibs; do capacity_row "$g" || rc=1; done
    cat "$table"
    exit $rc
    ;;
  *)
    echo "usage: gpu-budget.sh check|bench|stream|refuse|capacity [OUTDIR] [GIB...]" >&2
    exit 2
    ;;
esac
