#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# The module exports exactly one symbol, the entry point; everything else is hidden
# (-fvisibility=hidden, libtool -export-symbols-regex).
set -eu
mod=${SEALPROV_PLUGIN:?SEALPROV_PLUGIN is not set (make check sets it)}
[ -f "$mod" ] || { echo "no module at $mod"; exit 1; }
command -v nm >/dev/null 2>&1 || { echo "nm not found: skipping"; exit 77; }
syms=$(nm -D --defined-only "$mod" | awk 'NF >= 3 { print $3 }' | sort)
echo "exported by $mod:"
echo "$syms"
if [ "$syms" != "sealprov_provider_init" ]; then
  echo "FAIL: expected exactly one exported symbol, sealprov_provider_init"
  exit 1
fi
nm -D --defined-only "$mod" | grep -q ' T sealprov_provider_init$' || {
  echo "FAIL: sealprov_provider_init is not a function (T) symbol"
  exit 1
}
