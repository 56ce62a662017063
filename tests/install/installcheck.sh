#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# installcheck.sh -- `make installcheck` (which `make distcheck` runs on the tree it
# installs): the installed tree works as README.md ("Installing a production module")
# and docs/integration.md (section 8) say, with nothing from the build tree:
#   the installed `sealprov check-config` accepts the installed sample INI, and
#   `sealprov devices` (no -c, no environment) opens the installed module with it;
#   the shell block of docs/integration.md's section 8, run as written in an empty
#   directory: docs/examples/c2_prove.c built with `pkg-config ... sealprov-c2` against
#   the installed header and libsealprov_c2, a partition of `sealprov setup` proved
#   through it on the installed module and INI, and the proof verified by `sealprov
#   verify`. Needs cc and pkg-config (the build's own tools).
set -u
: "${bindir:?run through make installcheck}" "${libdir:?}" "${sysconfdir:?}" "${top_srcdir:?}"
ini=$sysconfdir/sealprov/sealprov.ini
doc=$top_srcdir/docs/integration.md
unset SEALPROV_PLUGIN SEALPROV_CONFIG
fails=0
fail() { echo "FAIL: installcheck: $*"; fails=$((fails + 1)); }
T=$(mktemp -d "${TMPDIR:-/tmp}/sp_installcheck_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM

"$bindir/sealprov" check-config -q "$ini" || fail "sealprov check-config $ini"
"$bindir/sealprov" devices >"$T/devices" 2>&1 || { cat "$T/devices"; fail "sealprov devices"; }
cat "$T/devices"
grep -q ' ready *$' "$T/devices" || fail "sealprov devices shows no ready device"

# section 8's sh block, with the installed tools first on PATH and the installed .pc
# files where pkg-config looks; the example's source where the block names it
awk '/^## 8\. / { on = 1; next } on && /^## / { exit }
     on && /^```sh$/ { inb = 1; next } inb && /^```$/ { exit } inb' "$doc" >"$T/block.sh"
grep -q 'pkg-config' "$T/block.sh" || { echo "FAIL: installcheck: no sh block in section 8 of $doc"; exit 1; }
mkdir -p "$T/work/docs/examples"
cp "$top_srcdir/docs/examples/c2_prove.c" "$T/work/docs/examples/"
if (cd "$T/work" && PATH="$bindir:$PATH" PKG_CONFIG_PATH="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
  sh -eux "$T/block.sh") >"$T/block.out" 2>&1; then
  tail -5 "$T/block.out"
  grep -q 'valid' "$T/block.out" || fail "docs/integration.md section 8: sealprov verify said nothing valid"
else
  tail -30 "$T/block.out"
  fail "docs/integration.md section 8's block failed against the installed tree (above)"
fi
ldd "$T/work/c2_prove" 2>/dev/null | grep -q "$libdir/sealprov/libsealprov_c2" ||
  fail "c2_prove does not load libsealprov_c2 from $libdir/sealprov"

[ "$fails" -eq 0 ] || exit 1
echo "installcheck: the installed tree works as README.md and docs/integration.md say"
