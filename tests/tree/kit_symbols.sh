#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# kit_symbols.sh -- the shipped module carries none of the developer kit nor of the
# measuring apparatus (docs/design.md, "Layers"): no symbol that an object of
# kit/libsealprov_kit.la, of the developer commands (kit/cli/, sealprov-kit's objects) or
# of bench/ (sealprov-bench's objects) defines may be in sealprov.so -- every symbol of
# its table, local ones included, not only the one it exports. The kit (synthetic
# circuits and their insecure setup, .spa, .wtns, snarkjs .zkey proving, GPU self-test
# and benchmark kernels) is linked by tools/, kit/cli/, bench/ and tests/ only; kit/cli/
# and bench/ by their own programs only. The CUDA engine's probes and a test build's
# knobs (cuda/backend/probe.c, a library of its own) count with the kit.
#
# A local (static) name of a kit object may also be defined by an object of the
# module's own libraries (two files with a helper called le32): such a name tells
# nothing and is left out. A kit object linked into the module would still show,
# through its global names, which no module library defines.
#
# KIT_ARCHIVE, PROBE_ARCHIVE, KIT_CLI_OBJECTS, BENCH_OBJECTS, MODULE_SO and MODULE_ARCHIVES override what
# is compared
# (to run it on another build: a module of an older tree against this tree's kit).
set -eu
b=${top_builddir:?top_builddir is not set (make check sets it)}
kit=${KIT_ARCHIVE:-$b/kit/.libs/libsealprov_kit.a}
# the CUDA engine's probes: built with the CUDA backend, none without it
probe=${PROBE_ARCHIVE:-}
if [ -z "$probe" ] && [ -f "$b/cuda/.libs/libsealprov_cuda.a" ]; then
  probe=$b/cuda/.libs/libsealprov_cuda_probe.a
fi
so=${MODULE_SO:-${SEALPROV_PLUGIN:-$b/plugin/.libs/sealprov.so}}
NM=${NM:-nm}
# bench/: its host library and the program's own objects (none with
# configure --disable-benchmarks)
if [ -z "${BENCH_OBJECTS:-}" ] && [ "${SP_BENCHMARKS:-yes}" != no ]; then
  BENCH_OBJECTS="$b/bench/.libs/libsealprov_bench_host.a $(ls "$b"/bench/sealprov_bench-*.o 2>/dev/null | tr '\n' ' ')"
fi
# kit/cli/: the developer commands, sealprov-kit's own objects
KIT_CLI_OBJECTS=${KIT_CLI_OBJECTS:-$(ls "$b"/kit/cli/sealprov_kit-*.o 2>/dev/null | tr '\n' ' ')}
[ -n "$KIT_CLI_OBJECTS" ] || { echo "kit_symbols: no objects of kit/cli/ (sealprov-kit) in $b/kit/cli"; exit 1; }
for f in "$kit" $probe "$so" $KIT_CLI_OBJECTS ${BENCH_OBJECTS:-}; do
  [ -f "$f" ] || { echo "kit_symbols: $f not built"; exit 1; }
done
if [ -z "${MODULE_ARCHIVES:-}" ]; then
  # the module's libraries (SP_INTERNAL_LIBS of Makefile.am): dir/libx.la -> dir/.libs/libx.a
  : "${SP_MODULE_LIBS:?SP_MODULE_LIBS is not set (make check sets it)}"
  MODULE_ARCHIVES=
  for la in $SP_MODULE_LIBS; do
    MODULE_ARCHIVES="$MODULE_ARCHIVES $b/$(dirname "$la")/.libs/$(basename "$la" .la).a"
  done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# defined symbols (any binding) of an archive or shared object, one name a line, with
# the compiler's clone suffixes (foo.constprop.0, foo.cold) cut off
defined() {
  "$NM" "$@" 2>/dev/null | awk 'NF == 3 && $2 !~ /^[UwvN]$/ { print $3 }' \
    | sed 's/\..*//' | sort -u
}
defined "$kit" $probe > "$tmp/kit"
defined $MODULE_ARCHIVES > "$tmp/mod_objs"
defined "$so" > "$tmp/so"
# sanity: the lists are what they claim to be
grep -qx sp_circuit_generate "$tmp/kit" || { echo "kit_symbols: $kit does not define sp_circuit_generate"; exit 1; }
grep -qx sealprov_provider_init "$tmp/so" || { echo "kit_symbols: $so is not the module"; exit 1; }
if [ -n "${BENCH_OBJECTS:-}" ]; then
  defined $BENCH_OBJECTS > "$tmp/bench"
  grep -qx sp_cmd_bench_cpu "$tmp/bench" || { echo "kit_symbols: bench/'s objects do not define sp_cmd_bench_cpu"; exit 1; }
  grep -qx cmd_soak "$tmp/bench" || { echo "kit_symbols: bench/'s objects do not define cmd_soak"; exit 1; }
  nbench=$(wc -l < "$tmp/bench")
  comm -12 "$tmp/bench" "$tmp/so" | comm -23 - "$tmp/mod_objs" > "$tmp/bad_bench"
  if [ -s "$tmp/bad_bench" ]; then
    echo "kit_symbols: $so carries $(wc -l < "$tmp/bad_bench") symbol(s) of bench/:"
    sed 's/^/  /' "$tmp/bad_bench" | head -50
    exit 1
  fi
  echo "kit_symbols: none of the $nbench symbols of bench/ in $so"
fi
defined $KIT_CLI_OBJECTS > "$tmp/kit_cli"
grep -qx cmd_inspect "$tmp/kit_cli" || { echo "kit_symbols: kit/cli/'s objects do not define cmd_inspect"; exit 1; }
comm -12 "$tmp/kit_cli" "$tmp/so" | comm -23 - "$tmp/mod_objs" > "$tmp/bad_cli"
if [ -s "$tmp/bad_cli" ]; then
  echo "kit_symbols: $so carries $(wc -l < "$tmp/bad_cli") symbol(s) of the developer commands (kit/cli/):"
  sed 's/^/  /' "$tmp/bad_cli" | head -50
  exit 1
fi
echo "kit_symbols: none of the $(wc -l < "$tmp/kit_cli") symbols of kit/cli/ in $so"
nkit=$(wc -l < "$tmp/kit")
nso=$(wc -l < "$tmp/so")

# kit names in the module that no module library defines
comm -12 "$tmp/kit" "$tmp/so" | comm -23 - "$tmp/mod_objs" > "$tmp/bad"
if [ -s "$tmp/bad" ]; then
  echo "kit_symbols: $so carries $(wc -l < "$tmp/bad") symbol(s) of the developer kit ($kit):"
  sed 's/^/  /' "$tmp/bad" | head -50
  exit 1
fi
echo "kit_symbols: none of the $nkit symbols of the kit among the $nso of $so"
