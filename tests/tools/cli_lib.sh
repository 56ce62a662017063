# SPDX-License-Identifier: Apache-2.0 OR MIT
# cli_lib.sh -- sourced by the CLI tests after they set T (their temporary folder) and
# fails=0: one definition of how a test runs a command and judges its output.
# fail WHAT...: count a failure and say it
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# expect CODE DESCRIPTION -- CMD...: runs CMD, keeps its output in $T/out
expect() {
  want=$1; what=$2; shift 3
  "$@" >"$T/out" 2>&1
  got=$?
  if [ "$got" -ne "$want" ]; then
    fail "$what: exit $got, expected $want"
    sed 's/^/    /' "$T/out"
  fi
}
# has TEXT WHAT / lacks TEXT WHAT: $T/out holds TEXT, or does not
has() { grep -q -- "$1" "$T/out" || { fail "$2: output lacks '$1'"; sed 's/^/    /' "$T/out"; }; }
lacks() { grep -q -- "$1" "$T/out" && { fail "$2: output has '$1'"; sed 's/^/    /' "$T/out"; }; return 0; }
