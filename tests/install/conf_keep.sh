#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# conf_keep.sh -- `make install` never writes over the INI an operator edited, and
# `make uninstall` keeps it (conf/local.mk): the rules run into a DESTDIR. A first
# install puts the sample at sealprov.ini and sealprov.ini.sample; after an edit, a
# second install keeps the edit and says so; uninstall keeps the edited file and removes
# the sample; an unedited INI is removed by uninstall.
set -u
: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
command -v make >/dev/null 2>&1 || { echo "SKIP: no make"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/sp_confkeep_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
sample=$top_srcdir/conf/sealprov.ini
# the rules alone, in the build tree, outside the jobs of the make that runs this test
rules() { MAKEFLAGS= MFLAGS= make -s -C "$top_builddir" "$1" DESTDIR="$T/d" >"$T/out" 2>&1; }

rules install-sealprov-ini || { cat "$T/out"; fail "first install"; }
ini=$(find "$T/d" -name sealprov.ini)
[ -n "$ini" ] && cmp -s "$ini" "$sample" && cmp -s "$ini.sample" "$sample" ||
  { fail "the first install did not put the sample at sealprov.ini and sealprov.ini.sample"; exit 1; }

printf '[gpu0]\ntype = cuda\ndevice = 0\n' >>"$ini"
cp "$ini" "$T/edited"
rules install-sealprov-ini || { cat "$T/out"; fail "second install"; }
cat "$T/out"
cmp -s "$ini" "$T/edited" || fail "a second install wrote over the edited INI"
grep -q "^kept .*sealprov.ini (the new sample is sealprov.ini.sample" "$T/out" || fail "install did not say it kept the INI"

rules uninstall-sealprov-ini || { cat "$T/out"; fail "uninstall"; }
cat "$T/out"
cmp -s "$ini" "$T/edited" || fail "uninstall removed the edited INI"
[ -e "$ini.sample" ] && fail "uninstall left the sample"
grep -q "^kept .*sealprov.ini: it is not the sample" "$T/out" || fail "uninstall did not say it kept the INI"

rm -f "$ini"
rules install-sealprov-ini && rules uninstall-sealprov-ini || { cat "$T/out"; fail "install + uninstall"; }
[ -e "$ini" ] || [ -e "$ini.sample" ] && fail "uninstall left the unedited INI or the sample"

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "conf_keep: an edited INI survives install and uninstall"
