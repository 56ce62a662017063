#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# host_symbols.sh -- the CLI's host commands reach the module only through its table
# (docs/design.md, "The CLI", rule 15). The objects of tools/libsealprov_host.la (main.c,
# devices, check-config, prove, verify, demo and what they share) and of
# bench/libsealprov_bench_host.la (stress and soak, which measure the module through its
# table) may refer to no symbol that the module's libraries define -- what they do with
# the module goes through dlopen and sealprov_vtable, the way a daemon does -- and to the
# kit only for the functions listed below: the input files and synthetic data of the
# host commands. The developer commands (setup, inspect, wtns, the snarkjs modes: kit/cli/)
# and the benchmarks proper (bench: they time the module's internals in process) are the
# objects of the programs sealprov-kit and sealprov-bench and link the kit; `sealprov`
# holds none of them (the last check below).
#
# HOST_ARCHIVE (one or more), KIT_ARCHIVE, MODULE_ARCHIVES, HOST_PROGRAM and
# KIT_CLI_OBJECTS override what is compared.
set -eu
b=${top_builddir:?top_builddir is not set (make check sets it)}
if [ -z "${HOST_ARCHIVE:-}" ]; then
  HOST_ARCHIVE=$b/tools/.libs/libsealprov_host.a
  # configure --disable-benchmarks builds no bench/
  [ "${SP_BENCHMARKS:-yes}" = no ] || HOST_ARCHIVE="$HOST_ARCHIVE $b/bench/.libs/libsealprov_bench_host.a"
fi
kit=${KIT_ARCHIVE:-$b/kit/.libs/libsealprov_kit.a}
NM=${NM:-nm}
for f in $HOST_ARCHIVE "$kit"; do
  [ -f "$f" ] || { echo "host_symbols: $f not built"; exit 1; }
done
if [ -z "${MODULE_ARCHIVES:-}" ]; then
  : "${SP_MODULE_LIBS:?SP_MODULE_LIBS is not set (make check sets it)}"
  MODULE_ARCHIVES=
  for la in $SP_MODULE_LIBS; do
    MODULE_ARCHIVES="$MODULE_ARCHIVES $b/$(dirname "$la")/.libs/$(basename "$la" .la).a"
  done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# What the host commands take from the kit, and why.
cat >"$tmp/allowed" <<'LIST'
sp_spa_read
sp_spa_free
sp_wtns_load
sp_wtns_free
sp_setup_run
sp_partition_name
sp_random_seed
sp_circuit_generate
sp_circuit_free
sp_circuit_witness
sp_witness_free
sp_circuit_write_params_progress
sp_assignment_break_row
sp_cuda_setup_create
sp_cuda_setup_fixed_base
sp_cuda_setup_destroy
LIST
# sp_spa_*: the partition files prove, verify, stress read (the host's own input format);
# sp_wtns_*: the witnesses of prove --r1cs; sp_setup_run, sp_partition_name,
# sp_random_seed: demo's insecure setup; sp_circuit_*, sp_cuda_setup_*: the parameter
# files of a synthetic circuit (g16_util.c, for demo and soak; soak's in a child
# process); sp_circuit_witness, sp_witness_free, sp_assignment_break_row: soak's
# witnesses and its bad partitions.
sort -u -o "$tmp/allowed" "$tmp/allowed"

defined() {
  "$NM" "$@" 2>/dev/null | awk 'NF == 3 && $2 !~ /^[UwvN]$/ { print $3 }' | sort -u
}
# undefined references (strong and weak) of each object of the host archive: "object symbol"
"$NM" -A $HOST_ARCHIVE 2>/dev/null | awk 'NF >= 2 && $(NF-1) ~ /^[Uw]$/ { o = $1; sub(/:$/, "", o); sub(/.*:/, "", o); print o, $NF }' \
  | sort -u > "$tmp/refs"
cut -d' ' -f2 "$tmp/refs" | sort -u > "$tmp/undef"
defined "$kit" > "$tmp/kit"
defined $MODULE_ARCHIVES > "$tmp/mod"
grep -qx sp_spa_read "$tmp/kit" || { echo "host_symbols: $kit does not define sp_spa_read"; exit 1; }
grep -qx sealprov_provider_init "$tmp/mod" || { echo "host_symbols: the module archives do not define sealprov_provider_init"; exit 1; }
grep -q 'main.o cmd_prove$' "$tmp/refs" \
  || { echo "host_symbols: $HOST_ARCHIVE: no host library among them (no main.o -> cmd_prove)"; exit 1; }
case $HOST_ARCHIVE in
  *libsealprov_bench_host.a*)
    grep -q 'cmd_soak.o sp_cli_host_load$' "$tmp/refs" \
      || { echo "host_symbols: $HOST_ARCHIVE: no soak among them (no cmd_soak.o -> sp_cli_host_load)"; exit 1; } ;;
esac

fails=0
comm -12 "$tmp/undef" "$tmp/mod" > "$tmp/bad_mod"
if [ -s "$tmp/bad_mod" ]; then
  echo "host_symbols: host objects call the module's internals directly (use the table):"
  while read -r sym; do grep " $sym\$" "$tmp/refs" | sed 's/^/  /'; done < "$tmp/bad_mod"
  fails=1
fi
comm -12 "$tmp/undef" "$tmp/kit" | comm -23 - "$tmp/mod" | comm -23 - "$tmp/allowed" > "$tmp/bad_kit"
if [ -s "$tmp/bad_kit" ]; then
  echo "host_symbols: host objects call kit functions outside the list in $0:"
  while read -r sym; do grep " $sym\$" "$tmp/refs" | sed 's/^/  /'; done < "$tmp/bad_kit"
  fails=1
fi
[ "$fails" -eq 0 ] || exit 1
nobj=$(cut -d' ' -f1 "$tmp/refs" | sort -u | wc -l)
nkit=$(comm -12 "$tmp/undef" "$tmp/kit" | wc -l)
echo "host_symbols: $nobj host objects refer to none of the $(wc -l < "$tmp/mod") symbols of the module's libraries, and to $nkit of the kit's, all listed"

# The program: `sealprov` is the host library alone (the developer commands run in
# sealprov-kit, the benchmark commands in sealprov-bench), so a process that dlopens the module holds no second copy of its state:
# the program defines no symbol of the layers that keep it (runtime: scheduler, pool,
# host memory, logger; the engines and their backends, the CUDA one included). It may hold what the listed kit
# functions need (file readers, the curve library, setup's kernels): no state there.
prog=${HOST_PROGRAM:-$b/tools/sealprov}
[ -f "$prog" ] || { echo "host_symbols: $prog not built"; exit 1; }
state=
for la in $SP_MODULE_LIBS; do
  case $la in
    */libsealprov_runtime.la | */libsealprov_backends.la | */libsealprov_engine.la)
      state="$state $b/$(dirname "$la")/.libs/$(basename "$la" .la).a" ;;
  esac
done
[ -n "$state" ] || { echo "host_symbols: no runtime, backends or engine library in SP_MODULE_LIBS"; exit 1; }
# global symbols only: a function's local static (names.0) may share a name by chance
global() {
  "$NM" "$@" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[A-TV-Z]$/ { print $3 }' | sort -u
}
global $state > "$tmp/state"
# the CUDA backend (engine, staging, residency, pipeline, load service) is in the CUDA
# library beside the kernels: its objects count, the kernels' do not
for la in $SP_MODULE_LIBS; do
  case $la in
    */libsealprov_cuda.la)
      "$NM" -A "$b/$(dirname "$la")/.libs/libsealprov_cuda.a" 2>/dev/null |
        awk 'NF == 3 && $2 ~ /^[A-TV-Z]$/ && $1 ~ /(engine_cuda|staging|residency|pipeline|load_service)\.o:/ { print $3 }' \
        >> "$tmp/state" ;;
  esac
done
sort -u -o "$tmp/state" "$tmp/state"
grep -qx sp_sched_create "$tmp/state" || { echo "host_symbols: the runtime library does not define sp_sched_create"; exit 1; }
global "$prog" > "$tmp/prog"
comm -12 "$tmp/prog" "$tmp/state" > "$tmp/bad_prog"
if [ -s "$tmp/bad_prog" ]; then
  echo "host_symbols: $prog carries $(wc -l < "$tmp/bad_prog") symbols of the module's runtime and engines, e.g.:"
  head -10 "$tmp/bad_prog" | sed 's/^/  /'
  exit 1
fi
echo "host_symbols: $prog defines none of the $(wc -l < "$tmp/state") symbols of the module's runtime and engines"

# Nor the developer commands: their code (kit/cli/, sealprov-kit's objects) stays out of
# `sealprov`, whose weak references to them stay empty (main.c runs sealprov-kit).
cli_objs=${KIT_CLI_OBJECTS:-$(ls "$b"/kit/cli/sealprov_kit-*.o 2>/dev/null | tr '\n' ' ')}
[ -n "$cli_objs" ] || { echo "host_symbols: no objects of kit/cli/ (sealprov-kit) in $b/kit/cli"; exit 1; }
# shellcheck disable=SC2086
global $cli_objs > "$tmp/kit_cli"
grep -qx cmd_setup "$tmp/kit_cli" || { echo "host_symbols: kit/cli/'s objects do not define cmd_setup"; exit 1; }
comm -12 "$tmp/prog" "$tmp/kit_cli" > "$tmp/bad_cli"
if [ -s "$tmp/bad_cli" ]; then
  echo "host_symbols: $prog carries $(wc -l < "$tmp/bad_cli") symbols of the developer commands (kit/cli/), e.g.:"
  head -10 "$tmp/bad_cli" | sed 's/^/  /'
  exit 1
fi
echo "host_symbols: $prog defines none of the $(wc -l < "$tmp/kit_cli") symbols of the developer commands (kit/cli/)"
