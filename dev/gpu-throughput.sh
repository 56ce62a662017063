#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# gpu-throughput.sh [--dry-run] OUTDIR [SIZE...] -- several GPUs, on a machine with 1, 2, 4 or
# 8 GPUs (the `device` tool's nvidia-h200, -x2, -x4, -x8 kinds): what the GPUs' topology
# is, how partition throughput scales with the GPU count, that a fault on the last GPU
# costs no proof, and that INI selectors find their GPUs under a permuted
# CUDA_VISIBLE_DEVICES. Steps (STEPS picks some; default all, in this order):
#   topology    `sealprov devices` (table and --json) on every GPU: NUMA node, bound
#               CPUs, PCIe link of each
#   throughput  per SIZE (default 24 27) and per GPU count (1, 2, 4, 8 up to what the
#               machine has, and the count itself), one `sealprov bench gpu --json
#               --throughput SIZE --gpus N` process each (so its host peak RSS is that
#               run's): partitions/s, the ratio to 1 GPU, each GPU's busy share, idle
#               share and largest gap between partitions (from the scheduler's timeline)
#   fault       `sealprov demo` on every GPU with [testing] inject = fail_kernel on the
#               LAST GPU: every proof must verify, none may come from that GPU
#   select      every GPU named by uuid= or pci= (alternating) in the INI, run with
#               CUDA_VISIBLE_DEVICES = their UUIDs in reverse order: each section must
#               resolve to its own GPU (UUID and PCI id) at the permuted ordinal, and a
#               demo under that environment must verify every proof
# Results in OUTDIR: summary.txt (one line per run and per device, key=value),
# scaling.md (the table for docs/PERFORMANCE.md), checks.txt (PASS/FAIL per check),
# and each step's logs, JSON and timelines. Exit status 0 when every run and check
# passed.
#
# On the GPU machine, from a release tarball (`make dist` in a CUDA-configured build,
# the tarball carried with the Debian packages of dev/device-env.sh in .deb/):
#   TARBALL=.dist-NAME/sealprov-0.1.0.tar.gz sh dev/gpu-throughput.sh "$OUT" 24 27
# unpacks it to $WORK (default /tmp/sp-tp), builds it there (--with-cuda --enable-werror,
# make -j$(nproc)) and runs from that build; a later call on the same machine finds the
# build and skips that. Or from a built tree: BUILD=DIR (the build directory; default:
# this tree when tools/sealprov is in it). dev/device-env.sh is sourced when .deb/ or
# its prefix is there (the machine has no libinih of its own).
#
# --dry-run: the same steps on CPU devices standing in for GPUs (DRY_GPUS, default 4;
# a fake 2-node sysfs tree from tests/runtime/fake_sysfs.sh; SIZE default 10; `sealprov
# stress` instead of `bench gpu`, whose figures come from the timeline with
# dev/timeline-summary.awk; the selection check's parser on a synthetic table). CI runs
# it (tests/bench/gpu_throughput_dry.sh) so that this script does not rot between the
# sessions that have the machines. Its figures are no measurement of anything.
#
# Settable through the environment:
#   STEPS         default "topology throughput fault select"
#   GPUS          GPU counts for throughput (default 1,2,4,8 up to the machine's, plus
#                 the machine's own count)
#   JOBS24, JOBS27, JOBS  timed jobs per size (defaults 3, 2, 2); PARTITIONS per job
#                 (default 10); WORKERS per GPU (default 2); PINNED: bench's
#                 --pinned-staging: auto (= chunked) | chunked | whole | off | bytes, or
#                 a comma list (each stream once per mode, same data)
#   DEMO_CONSTRAINTS, DEMO_PARTITIONS  the fault and select demos (default 262144, 20)
#   TOTAL         seconds this call may take (default 580); a run that would start with
#                 less than 30 s left is skipped (and reported)
#   COMMIT        the commit to name in scaling.md (from a tarball there is no git)
set -u
dry=0
if [ "${1:-}" = --dry-run ]; then dry=1; shift; fi
out=${1:?usage: sh dev/gpu-throughput.sh [--dry-run] OUTDIR [SIZE...]}
shift
top=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -gt 0 ]; then sizes=$*; elif [ $dry = 1 ]; then sizes=10; else sizes="24 27"; fi
steps=${STEPS:-topology throughput fault select}
start=$(date +%s)
total=${TOTAL:-580}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
: > "$out/summary.txt"
: > "$out/checks.txt"
rc_all=0

say() { echo "== $*"; }
left() { echo $(( total - ($(date +%s) - start) )); }
check() { # check NAME STATUS DETAIL: PASS when STATUS is 0
  if [ "$2" = 0 ]; then line="PASS $1: $3"; else line="FAIL $1: $3"; rc_all=1; fi
  echo "$line" | tee -a "$out/checks.txt"
}
has_step() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }

# ---- the build ------------------------------------------------------------------------
if [ -d /tmp/sp-prefix/usr ] || [ -d .deb ]; then . "$top/dev/device-env.sh"; fi
if [ -n "${TARBALL:-}" ]; then
  work=${WORK:-/tmp/sp-tp}
  src=$(ls -d "$work"/sealprov-* 2>/dev/null | head -1)
  if [ -z "$src" ] || [ ! -x "$src/tools/sealprov" ]; then
    say "build $TARBALL in $work"
    rm -rf "$work" && mkdir -p "$work" && tar xzf "$TARBALL" -C "$work" || exit 1
    src=$(ls -d "$work"/sealprov-* | head -1)
    # device code for this machine's GPUs only (configure's default builds every architecture)
    gpu_archs=$(sh "$top/dev/gpu-archs.sh")
    (cd "$src" && ./configure --with-cuda ${gpu_archs:+--with-cuda-arch=$gpu_archs} --enable-fault-injection --enable-werror && make -j"$(nproc)") \
      > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; echo "build failed"; exit 1; }
    say "built after $(( $(date +%s) - start )) s"
  fi
  BUILD=$src
fi
build=${BUILD:-$top}
if [ ! -x "$build/tools/sealprov" ]; then
  echo "no $build/tools/sealprov: give BUILD=DIR (a built tree) or TARBALL=FILE" >&2
  exit 2
fi
build=$(cd "$build" && pwd)
plugin=$build/plugin/.libs/sealprov.so
cli() { "$build/tools/sealprov" --plugin "$plugin" "$@"; }
# the commit the figures belong to: COMMIT (give it when running from a tarball), else git
if [ -n "${COMMIT:-}" ]; then echo "$COMMIT" > "$out/commit.txt"
elif ! git -C "$top" rev-parse --short HEAD > "$out/commit.txt" 2> /dev/null; then
  echo "$(basename "$build") (unknown commit: give COMMIT)" > "$out/commit.txt"
fi

# Runs CMD... with stdout to OUTFILE and stderr to ERRFILE, stops it after SECONDS, and
# writes its peak resident memory (VmHWM, bytes, sampled every 0.2 s: a lower bound
# within the last sample) to RSSFILE. Returns CMD's status (124 when stopped). CMD may
# start with env VAR=VALUE (env execs the program: the sampled process is the program).
run_rss() { # run_rss SECONDS OUTFILE ERRFILE RSSFILE CMD...
  lim=$1 o=$2 e=$3 r=$4
  shift 4
  "$@" > "$o" 2> "$e" &
  pid=$!
  hwm=0 t0=$(date +%s) stopped=0
  while kill -0 "$pid" 2> /dev/null; do
    v=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB$/\1/p' "/proc/$pid/status" 2> /dev/null)
    [ -n "$v" ] && hwm=$v
    if [ $(( $(date +%s) - t0 )) -ge "$lim" ]; then kill "$pid" 2> /dev/null; stopped=1; fi
    sleep 0.2
  done
  wait "$pid"
  st=$?
  echo $(( hwm * 1024 )) > "$r"
  [ $stopped = 1 ] && return 124
  return $st
}

# ---- the GPUs (or their stand-ins) ----------------------------------------------------
# gpus.csv: index, uuid, pci bus id, name (nvidia-smi's order, which CUDA_VISIBLE_DEVICES
# does not change)
if [ $dry = 1 ]; then
  ngpu=${DRY_GPUS:-4}
  i=0
  : > "$out/gpus.csv"
  while [ $i -lt "$ngpu" ]; do
    printf '%d, GPU-%08d-0000-0000-0000-%012d, 00000000:%02X:00.0, CPU stand-in\n' $i $i $i \
      $(( 0x17 + 0x20 * i )) >> "$out/gpus.csv"
    i=$((i + 1))
  done
  sysfs=$out/sysfs
  allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
  sh "$top/tests/runtime/fake_sysfs.sh" "$sysfs" "${allowed:-0}" "${allowed:-0}" || exit 1
  SEALPROV_SYSFS_ROOT=$sysfs
  export SEALPROV_SYSFS_ROOT
else
  nvidia-smi --query-gpu=index,uuid,pci.bus_id,name --format=csv,noheader > "$out/gpus.csv" \
    || { echo "nvidia-smi failed: no GPU?" >&2; exit 1; }
  ngpu=$(grep -c . "$out/gpus.csv")
  nvidia-smi topo -m > "$out/nvidia-topo.txt" 2>&1 || true
fi
free -g > "$out/memory.txt" 2>&1 || true
nproc > "$out/nproc.txt"
cat "$out/gpus.csv"
[ "$ngpu" -ge 1 ] || { echo "no GPU listed" >&2; exit 1; }
field() { sed -n "$(( $1 + 1 ))p" "$out/gpus.csv" | cut -d, -f"$2" | tr -d ' '; }
last=$((ngpu - 1))

# ini FILE N [testing lines...]: the first N GPUs, by UUID, as [gpu0].. [gpuN-1]
ini() {
  f=$1 n=$2
  shift 2
  {
    printf '[provider]\nlog_level = warn\n'
    [ $dry = 1 ] && printf 'params_subgroup_check = false\n'
    i=0
    while [ $i -lt "$n" ]; do
      if [ $dry = 1 ]; then # the first half of the stand-ins on node 0, the rest on node 1
        printf '\n[gpu%d]\ntype = cpu\nthreads = 1\nworkers = %s\nnuma_node = %d\n' $i \
          "${WORKERS:-1}" $(( 2 * i / n ))
      else
        printf '\n[gpu%d]\ntype = cuda\ndevice = uuid=%s\nworkers = %s\n' $i "$(field $i 2)" \
          "${WORKERS:-2}"
      fi
      i=$((i + 1))
    done
    for l in "$@"; do printf '%s\n' "$l"; done
  } > "$f"
}

# ---- topology -------------------------------------------------------------------------
if has_step topology; then
  say "topology"
  ini "$out/all.ini" "$ngpu"
  cli devices --wide -c "$out/all.ini" > "$out/topology.txt" 2> "$out/topology.err"
  st=$?
  cli devices -c "$out/all.ini" --json > "$out/topology.json" 2>> "$out/topology.err"
  cat "$out/topology.txt" "$out/topology.err"
  check topology "$st" "sealprov devices listed $(( $(grep -c . "$out/topology.txt") - 1 )) of $ngpu device(s)"
fi

# ---- throughput -----------------------------------------------------------------------
counts() {
  if [ -n "${GPUS:-}" ]; then echo "$GPUS" | tr ',' ' '; return; fi
  c=""
  for k in 1 2 4 8; do [ $k -le "$ngpu" ] && c="$c $k"; done
  case " $c " in *" $ngpu "*) ;; *) c="$c $ngpu" ;; esac
  echo $c
}

# summary lines of one bench gpu JSON (python3: the GPU machines have it)
bench_summary() { # bench_summary JSON LABEL
  python3 - "$1" "$2" << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d.get("results", []):
    if r.get("op") != "throughput":
        continue
    print("run %s partitions=%d span_s=%.3f pps=%.4f rss_bytes=%d steady_pps=%.4f" % (
        sys.argv[2], r["partitions"], r["seconds"], r["partitions_per_s"],
        r.get("host_max_rss_bytes", 0), r["steady_partitions_per_s"]))
    for v in r["devices"]:
        print("dev %s device=%d partitions=%d busy_pct=%.2f idle_pct=%.2f maxgap_ms=%.1f "
              "failed=0 execute_ms=%.0f prepare_ms=%.0f" % (
            sys.argv[2], v["device"], v["partitions"], 100 * v["busy_fraction"],
            100 * v["idle_between_partitions_fraction"], v["max_idle_gap_ms"],
            v["execute_median_ms"], v["prepare_median_ms"]))
PY
}

if has_step throughput; then
  if [ $dry = 0 ] && ! cli bench gpu --help > /dev/null 2>&1; then
    check throughput 1 "this build has no 'sealprov bench gpu' (configure --with-cuda)"
  else
    for size in $sizes; do
      case $size in 24) jobs=${JOBS24:-3} ;; 27) jobs=${JOBS27:-2} ;; *) jobs=${JOBS:-2} ;; esac
      parts=${PARTITIONS:-10}
      if [ $dry = 1 ]; then
        say "2^$size: setup of $parts partitions (CPU stand-ins)"
        rm -rf "$out/job-$size"
        cli setup --constraints $(( 1 << size )) --inputs 4 --partitions "$parts" \
          --out "$out/job-$size" > "$out/setup-$size.log" 2>&1 \
          || { check "throughput 2^$size" 1 "setup failed (setup-$size.log)"; continue; }
      fi
      for n in $(counts); do
        lim=$(( $(left) - 10 ))
        label="size=$size gpus=$n"
        if [ "$lim" -lt 30 ]; then
          check "throughput 2^$size x $n" 1 "skipped: $lim s left of TOTAL=$total"
          continue
        fi
        say "2^$size on $n GPU(s): $jobs job(s) of $parts partitions (limit $lim s)"
        base="$out/tp-$size-$n"
        if [ $dry = 1 ]; then
          ini "$base.ini" "$n"
          run_rss "$lim" "$base.json" "$base.log" "$base.rss" env SEALPROV_TIMELINE="$base.timeline" \
            "$build/tools/sealprov" --plugin "$plugin" stress -c "$base.ini" \
            --params "$out/job-$size/circuit.params" --threads 1 --jobs-per-thread "$jobs" --json \
            "$out/job-$size"/partition-*.spa
          st=$?
          awk -v label="$label" -f "$top/dev/timeline-summary.awk" "$base.timeline" \
            | sed "s/^run .*/& rss_bytes=$(cat "$base.rss")/" > "$base.summary"
        else
          set -- --json --throughput "$size" --gpus "$n" --jobs "$jobs" --partitions "$parts" \
            --workers "${WORKERS:-2}"
          [ -n "${PINNED:-}" ] && set -- "$@" --pinned-staging "$PINNED"
          run_rss "$lim" "$base.json" "$base.log" "$base.rss" \
            "$build/tools/sealprov" --plugin "$plugin" bench gpu "$@"
          st=$?
          bench_summary "$base.json" "$label" > "$base.summary" 2>> "$base.log"
        fi
        tail -3 "$base.log"
        cat "$base.summary" | tee -a "$out/summary.txt"
        check "throughput 2^$size x $n" "$st" "exit $st ($(basename "$base").log)"
      done
    done
    # the table: ratio to the 1-GPU run of the same size, per-GPU busy/idle/gaps
    awk -v commit="$(cat "$out/commit.txt")" '
      function kv(line, key,    i, n, f) {
        n = split(line, f, " ")
        for (i = 1; i <= n; i++) if (index(f[i], key "=") == 1) return substr(f[i], length(key) + 2)
        return ""
      }
      $1 == "run" { k = kv($0, "size") " " kv($0, "gpus"); run[k] = $0; keys[++nk] = k
                    if (kv($0, "gpus") == 1) one[kv($0, "size")] = kv($0, "pps") }
      $1 == "dev" { k = kv($0, "size") " " kv($0, "gpus")
                    devs[k] = devs[k] sprintf("%s%.2f/%.2f/%.1f", devs[k] == "" ? "" : " ; ",
                      kv($0, "busy_pct"), kv($0, "idle_pct"), kv($0, "maxgap_ms")) }
      END {
        print "| size | GPUs | partitions | seconds | partitions/s | x 1 GPU | busy % / idle % / largest gap ms, per GPU | host peak RSS |"
        print "|---|---|---|---|---|---|---|---|"
        for (i = 1; i <= nk; i++) {
          r = run[keys[i]]; s = kv(r, "size"); pps = kv(r, "pps")
          ratio = (one[s] > 0) ? sprintf("%.3f", pps / one[s]) : "-"
          rss = kv(r, "rss_bytes") / 1048576
          rss = rss >= 1024 ? sprintf("%.1f GiB", rss / 1024) : sprintf("%.0f MiB", rss)
          printf "| 2^%s | %s | %s | %s | %s | %s | %s | %s |\n", s, kv(r, "gpus"),
                 kv(r, "partitions"), kv(r, "span_s"), pps, ratio, devs[keys[i]], rss
        }
        print ""
        print "commit " commit
      }' "$out/summary.txt" > "$out/scaling.md"
    cat "$out/scaling.md"
  fi
fi

# ---- fault on the last GPU ------------------------------------------------------------
demo_c=${DEMO_CONSTRAINTS:-262144}
demo_p=${DEMO_PARTITIONS:-20}
[ $dry = 1 ] && { demo_c=${DEMO_CONSTRAINTS:-1024}; demo_p=${DEMO_PARTITIONS:-8}; }
if has_step fault; then
  if [ "$ngpu" -lt 2 ]; then
    check fault 0 "skipped: one GPU (the fault would leave no healthy device)"
  elif [ "$(left)" -lt 40 ]; then
    check fault 1 "skipped: $(left) s left of TOTAL=$total"
  elif ini "$out/fault.ini" "$ngpu" "" "[testing]" "inject_device = gpu$last" "inject = fail_kernel" &&
       ! cli check-config -q "$out/fault.ini" > "$out/fault.cfg" 2>&1 &&
       grep -q 'enable-fault-injection' "$out/fault.cfg"; then
    check fault 0 "skipped: this build has no fault injection (configure --enable-fault-injection)"
  else
    say "demo on $ngpu GPU(s), fail_kernel on gpu$last"
    run_rss $(( $(left) - 10 )) "$out/fault.json" "$out/fault.log" "$out/fault.rss" \
      env SEALPROV_TIMELINE="$out/fault.timeline" SEALPROV_STATS="$out/fault.stats" \
      "$build/tools/sealprov" --plugin "$plugin" demo -c "$out/fault.ini" \
      --constraints "$demo_c" --partitions "$demo_p" --json
    st=$?
    cat "$out/fault.log"
    awk -v label="fault gpus=$ngpu" -f "$top/dev/timeline-summary.awk" "$out/fault.timeline" \
      | tee -a "$out/summary.txt"
    verified=$(sed -n 's/.*"verified": \([0-9]*\).*/\1/p' "$out/fault.json")
    from_last=$(grep -o "\"device\": $last," "$out/fault.json" | grep -c .)
    failed_last=$(awk -v label=x -f "$top/dev/timeline-summary.awk" "$out/fault.timeline" \
      | sed -n "s/^dev x device=$last .*failed=\([0-9]*\).*/\1/p")
    ok=1
    [ "$st" = 0 ] && [ "${verified:-0}" = "$demo_p" ] && [ "$from_last" = 0 ] \
      && [ "${failed_last:-0}" -gt 0 ] && ok=0
    check fault "$ok" "exit $st, ${verified:-0} of $demo_p proofs verified, $from_last from gpu$last, ${failed_last:-0} injected failure(s) there, host peak RSS $(( $(cat "$out/fault.rss") >> 20 )) MiB"
  fi
fi

# ---- selection under a permuted CUDA_VISIBLE_DEVICES ----------------------------------
# sel_check JSON PERMFILE: every section physN of the devices JSON has GPU N's UUID and
# PCI id and the ordinal N has in the permutation (PERMFILE: one "N ordinal uuid pci" a
# line); prints one line per mismatch, nothing when all match
sel_check() {
  sel_rows=$1.rows
  sed 's/}, {/}\n{/g' "$1" | sed -n 's/.*"section": "phys\([0-9]*\)".*"uuid": "\([^"]*\)", "pci_bus_id": "\([^"]*\)", "ordinal": \(-*[0-9]*\), "confirmed_ordinal": \(-*[0-9]*\).*/\1 \4 \2 \3 \5/p' \
    | tr 'A-F' 'a-f' > "$sel_rows"
  tr 'A-F' 'a-f' < "$2" | while read -r n ord uuid pci; do
    row=$(awk -v n="$n" '$1 == n' "$sel_rows")
    [ -n "$row" ] || { echo "phys$n: not in the table"; continue; }
    set -- $row
    pci_want=$(echo "$pci" | sed 's/^0000\(....:\)/\1/')
    [ "$2" = "$ord" ] || echo "phys$n: ordinal $2, want $ord"
    [ "$5" = "$ord" ] || echo "phys$n: confirmed ordinal $5, want $ord"
    [ "$3" = "$uuid" ] || echo "phys$n: uuid $3, want $uuid"
    [ "$4" = "$pci_want" ] || echo "phys$n: pci $4, want $pci_want"
  done | tr '\n' ';' | sed 's/;$//; s/;/; /g'
}
if has_step select; then
  # reversed order: physical GPU i is ordinal ngpu-1-i in the process
  : > "$out/select.expect"
  i=0
  cvd=""
  while [ $i -lt "$ngpu" ]; do
    echo "$i $((ngpu - 1 - i)) $(field $i 2) $(field $i 3)" >> "$out/select.expect"
    cvd="$(field $i 2)${cvd:+,$cvd}"
    i=$((i + 1))
  done
  {
    printf '[provider]\nlog_level = warn\n'
    i=0
    while [ $i -lt "$ngpu" ]; do
      if [ $((i % 2)) = 0 ]; then sel="uuid=$(field $i 2)"; else sel="pci=$(field $i 3)"; fi
      printf '\n[phys%d]\ntype = cuda\ndevice = %s\n' $i "$sel"
      i=$((i + 1))
    done
  } > "$out/select.ini"
  if [ $dry = 1 ]; then
    # no CUDA devices here: the checker against the table the module would give
    say "select: the checker on a synthetic table (dry run)"
    awk 'BEGIN { printf "{\"ok\": true, \"devices\": [" }
         { pci = $4; sub(/^0000/, "", pci); sep = NR > 1 ? ", " : ""
           printf "%s{\"index\": %d, \"section\": \"phys%d\", \"type\": \"cuda\", \"name\": \"x\", \"uuid\": \"%s\", \"pci_bus_id\": \"%s\", \"ordinal\": %d, \"confirmed_ordinal\": %d, \"workers\": 2}",
                  sep, NR - 1, $1, $3, tolower(pci), $2, $2 }
         END { print "]}" }' "$out/select.expect" > "$out/select.json"
    bad=$(sel_check "$out/select.json" "$out/select.expect")
    check select-checker "$([ -z "$bad" ] && echo 0 || echo 1)" "${bad:-every section matched}"
    # and it sees a wrong table as wrong
    sed 's/"ordinal": 0,/"ordinal": 9,/' "$out/select.json" > "$out/select-bad.json"
    bad=$(sel_check "$out/select-bad.json" "$out/select.expect")
    check select-checker-negative "$([ -n "$bad" ] && echo 0 || echo 1)" "${bad:-a wrong ordinal went unseen}"
  elif [ "$ngpu" -lt 2 ]; then
    check select 0 "skipped: one GPU (nothing to permute)"
  else
    say "select: CUDA_VISIBLE_DEVICES=$cvd"
    CUDA_VISIBLE_DEVICES=$cvd cli devices -c "$out/select.ini" --json > "$out/select.json" \
      2> "$out/select.err"
    st=$?
    CUDA_VISIBLE_DEVICES=$cvd cli devices --wide -c "$out/select.ini" > "$out/select.txt" 2>&1
    cat "$out/select.txt"
    bad=$(sel_check "$out/select.json" "$out/select.expect")
    check select "$([ "$st" = 0 ] && [ -z "$bad" ] && echo 0 || echo 1)" \
      "exit $st; ${bad:-each phys section on its GPU at the permuted ordinal}"
    if [ "$(left)" -ge 40 ]; then
      run_rss $(( $(left) - 10 )) "$out/select-demo.json" "$out/select-demo.log" \
        "$out/select-demo.rss" env CUDA_VISIBLE_DEVICES="$cvd" \
        SEALPROV_TIMELINE="$out/select.timeline" "$build/tools/sealprov" --plugin "$plugin" demo \
        -c "$out/select.ini" --constraints "$demo_c" --partitions "$demo_p" --json
      st=$?
      verified=$(sed -n 's/.*"verified": \([0-9]*\).*/\1/p' "$out/select-demo.json")
      used=$(sed -n 's/.*"devices_used": \([0-9]*\).*/\1/p' "$out/select-demo.json")
      check select-demo "$([ "$st" = 0 ] && [ "${verified:-0}" = "$demo_p" ] && echo 0 || echo 1)" \
        "exit $st, ${verified:-0} of $demo_p verified on ${used:-0} GPU(s)"
    else
      check select-demo 1 "skipped: $(left) s left"
    fi
  fi
fi

say "done after $(( $(date +%s) - start )) s"
cat "$out/checks.txt"
exit $rc_all
