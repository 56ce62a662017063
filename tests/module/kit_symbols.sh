#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# kit_symbols.sh -- the shipped module carries none of the developer kit (docs/design.md,
# "Layers"): no symbol that an object of kit/libsealprov_kit.la defines may be in
# sealprov.so -- every symbol of its table, local ones included, not only the one it
# exports. The kit (synthetic circuits and their insecure setup, .spa, .wtns, snarkjs
# .zkey proving, GPU self-test and benchmark kernels, the CUDA engine's test knobs) is
# linked by tools/ and tests/ only.
#
# A local (static) name of a kit object may also be defined by an object of the
# module's own libraries (two files with a helper called le32): such a name tells
# nothing and is left out. A kit object linked into the module would still show,
# through its global names, which no module library defines.
#
# KIT_ARCHIVE, MODULE_SO and MODULE_ARCHIVES override what is compared (to run it on
# another build: a module of an older tree against this tree's kit).
set -eu
b=${top_builddir:?top_builddir is not set (make check sets it)}
kit=${KIT_ARCHIVE:-$b/kit/.libs/libsealprov_kit.a}
so=${MODULE_SO:-${SEALPROV_PLUGIN:-$b/plugin/.libs/sealprov.so}}
NM=${NM:-nm}
for f in "$kit" "$so"; do
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
defined "$kit" > "$tmp/kit"
defined $MODULE_ARCHIVES > "$tmp/mod_objs"
defined "$so" > "$tmp/so"
# sanity: the lists are what they claim to be
grep -qx sp_circuit_generate "$tmp/kit" || { echo "kit_symbols: $kit does not define sp_circuit_generate"; exit 1; }
grep -qx sealprov_provider_init "$tmp/so" || { echo "kit_symbols: $so is not the module"; exit 1; }
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
