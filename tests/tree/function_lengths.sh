#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# function_lengths.sh [TOP] -- functions a reader can hold (docs/design.md, "Layers"): no
# function of the shipped C and of CUDA's host code (plugin/, cuda/, compat/, tools/,
# bench/: .c .cu .cuh) is over 80 lines, from its first line to its closing brace. A function that
# grows past it is split by what it does (checks apart from the work, one path apart
# from the next); one that stays longer is named below with the reason.
#
# Functions are found by the layout dev/format.sh keeps: a definition starts at column
# 0 and its body ends at the first "}" at column 0. Device code (__global__ and
# __device__ functions, and the methods inside a struct: the field and curve arithmetic
# of cuda/ff and cuda/ec) is not counted: a kernel is straight-line arithmetic, kept
# whole so that the compiler keeps its values in registers. An exception for a function that is gone or no longer
# over the limit fails too, so the list cannot go stale.
#
# Before it reads the tree it checks itself on a sample it must measure exactly, so
# that a change of the parser cannot make the test pass vacuously.
set -eu
top=${1:-${top_srcdir:-.}}
cd "$top"
max=80
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# FILE:FUNCTION  why it may be longer, for now. Straight-line lists (one case per
# option, key or field, one message per check) are the lasting reasons; "to split"
# names the parts a later change takes apart.
exceptions='
bench/bench_gpu.c:bench_msm               to split: set-up of the points apart from the timed runs
bench/bench_gpu.c:sp_cmd_bench_gpu        one case per option of bench gpu, then the dispatch: to split
bench/bench_gpu_partition.c:bg_synth_make_spec to split: the host-memory check apart from making the set
bench/bench_gpu_partition.c:partition_runs to split: each engine call (prepare, execute, release) apart
bench/bench_gpu_throughput.c:tp_print     the report, one figure after another
bench/bench_gpu_throughput.c:bg_bench_throughput its options, then the runs: to split
bench/bench_gpu_throughput.c:tp_run_stream to split: scheduler set-up, warm-up, the timed jobs, the figures
bench/soak_report.c:write_json            the JSON report, one field after another
cuda/backend/engine_cuda.c:cuda_execute   to split: each witness path apart from the retry ladder
cuda/backend/pipeline.c:cuda_prove_partition to split: the stages of one partition
cuda/backend/staging.c:cuda_prepare       to split: each kind of staging apart
cuda/points/points.cu:sp_cuda_dload_begin to split: the checks apart from the first upload
plugin/formats/srs.c:parse                to split: one vector after another, each with its checks
plugin/formats/srs.c:read_points          to split: the CPU check apart from the chunked decode
plugin/formats/srs.c:sp_srs_load_ex       to split: open and map apart from parse and residency
plugin/groth16/checks.c:sp_groth16_check_assignment one check per field of the assignment, each with its message
plugin/runtime/ini.c:handle_device        one case per key of a [device] section
plugin/runtime/ini.c:handle_provider      one case per key of the [provider] section
plugin/runtime/reports.c:sp_sched_stats   the stats JSON, one field after another, from one snapshot
'

# lengths FILE...: "FILE:FUNCTION LINES" for every function defined at column 0
lengths() {
  awk '
    FNR == 1 { state = 0 }
    state == 0 {
      if ($0 !~ /^[A-Za-z_]/ || $0 ~ /^(typedef|struct|enum|union|namespace|extern "C" \{)/) next
      if (index($0, "(") == 0) next
      if ($0 ~ /^(__global__|__device__)/) next  # device code
      if (index(substr($0, 1, index($0, "(") - 1), "=") > 0) next  # an initializer
      sig = $0
      gsub(/__launch_bounds__\([^)]*\)/, "", sig)
      n = split(substr(sig, 1, index(sig, "(") - 1), w, /[^A-Za-z0-9_]+/)
      name = w[n]
      if (name == "" && n > 1) name = w[n - 1]
      start = FNR
      state = 1
    }
    state == 1 {
      if ($0 ~ /\{/ && $0 ~ /\}[ \t]*$/ && FNR == start) { state = 0; next }  # one line
      if ($0 ~ /;[ \t]*(\/\*.*\*\/)?[ \t]*$/ && $0 !~ /\{/) { state = 0; next }  # a declaration
      if ($0 ~ /\{[ \t]*(\/[*\/].*)?$/) state = 2
      next
    }
    state == 2 && /^\}/ {
      printf "%s:%s %d\n", FILENAME, name, FNR - start + 1
      state = 0
    }' "$@"
}

# the parser on a sample: a prototype, a one-line function, a kernel (not counted), a
# host template, a function whose signature takes three lines, an initializer with a
# call in it
cat >"$tmp/sample.cu" <<'EOF'
static int proto(int a,
                 int b);
static int one(void) { return 1; }
template <class F>
__global__ void __launch_bounds__(256, 2)
    k_sample(const F *in, F *out) {
  out[0] = in[0];
}
template <class F>
static int host_sample(const F *in, F *out) {
  if (in) {
    out[0] = in[0];
  }
}
static const int table[2] = {sizeof(int), 2};
extern "C" int sp_sample(int a, int b,
                         int c,
                         int d) {
  return a + b + c + d;
}
EOF
got=$(lengths "$tmp/sample.cu" | sed "s|$tmp/||" | tr '\n' ' ')
want="sample.cu:host_sample 5 sample.cu:sp_sample 5 "
if [ "$got" != "$want" ]; then
  echo "function_lengths: the parser measured the sample as '$got', want '$want'"
  exit 1
fi

dirs=
for d in plugin cuda compat tools bench; do [ -d "$d" ] && dirs="$dirs $d"; done
[ -n "$dirs" ] || { echo "function_lengths: no product folder under $top"; exit 1; }
# shellcheck disable=SC2086
files=$(find $dirs -type f \( -name '*.c' -o -name '*.cu' -o -name '*.cuh' \) | sort)
[ -n "$files" ] || { echo "function_lengths: no sources under$dirs"; exit 1; }
# shellcheck disable=SC2086
lengths $files >"$tmp/all"
echo "$exceptions" | awk 'NF { print $1 }' >"$tmp/excepted"
bad=0
while read -r fn n; do
  if grep -qxF "$fn" "$tmp/excepted"; then
    [ "$n" -gt "$max" ] || { echo "$fn: $n lines, no longer over $max: remove its exception from $0"; bad=$((bad + 1)); }
  elif [ "$n" -gt "$max" ]; then
    echo "$fn: $n lines, over $max: split it by what it does"
    bad=$((bad + 1))
  fi
done <"$tmp/all"
while read -r fn; do
  grep -q "^$fn " "$tmp/all" || { echo "$fn: not there: remove its exception from $0"; bad=$((bad + 1)); }
done <"$tmp/excepted"
nfn=$(wc -l <"$tmp/all")
nex=$(wc -l <"$tmp/excepted")
if [ "$bad" -gt 0 ]; then
  echo "function_lengths: $bad function(s) (docs/design.md, \"Layers\": functions a reader can hold)"
  exit 1
fi
echo "function_lengths: $nfn functions of$dirs, none over $max lines but the $nex named here"
