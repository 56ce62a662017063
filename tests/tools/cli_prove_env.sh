# SPDX-License-Identifier: Apache-2.0 OR MIT
# cli_prove_env.sh -- sourced (with set -eu in force) by the shell tests that make a
# setup and prove it through the CLI on CPU devices (fault_injection.sh, capacity.sh):
# skips (exit 77) a build without the setup and prove commands, sets $sealprov and $tmp
# (a scratch directory removed on exit) and defines fail MESSAGE.
: "${SEALPROV_PLUGIN:?SEALPROV_PLUGIN is not set (make check sets it)}"
sealprov=${top_builddir:?}/tools/sealprov
if ! "$sealprov" setup --help >/dev/null 2>&1 || ! "$sealprov" prove --help >/dev/null 2>&1; then
  echo "no setup/prove commands in this build: skipping"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
