#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# help_each.sh -- every command of `sealprov help` (and `bench load`, which that list does
# not name) answers --help with its usage on stdout, nothing on stderr and exit status 0,
# and does nothing else: a command whose option parsing is split from its run must still
# stop after the usage.
set -u
sealprov=$(cd "${top_builddir:?}" && pwd)/tools/sealprov
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
. "${top_srcdir:?}/tests/tools/cli_lib.sh" # fail

"$sealprov" help >"$T/list" || { echo "FAIL: sealprov help"; exit 1; }
# "  NAME [SUB]   summary" lines between "commands:" and the blank line after them
sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9-]*\( [a-z][a-z0-9-]*\)\{0,1\}\)  .*/\1/p' "$T/list" \
  | grep -vx help >"$T/cmds"
[ "$(wc -l <"$T/cmds")" -ge 10 ] || { cat "$T/list"; echo "FAIL: the command list was not read"; exit 1; }
grep -qx 'bench' "$T/cmds" && echo 'bench load' >>"$T/cmds"
cd "$T" || exit 1 # a command that ran on would leave files here
while read -r cmd; do
  # shellcheck disable=SC2086 # a two-word command is two arguments
  "$sealprov" $cmd --help >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" -eq 0 ] || fail "$cmd --help: exit $rc"
  [ -s "$T/err" ] && { fail "$cmd --help: wrote to stderr"; sed 's/^/    /' "$T/err"; }
  head -1 "$T/out" | grep -q "^usage: sealprov $cmd " || fail "$cmd --help: no usage line first"
done <"$T/cmds"
[ "$fails" -eq 0 ] || exit 1
echo "help_each: $(wc -l <"$T/cmds") commands answer --help with their usage alone"
