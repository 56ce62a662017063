#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Runs every harness of tests/fuzz over its checked-in corpus (tests/fuzz/corpus/NAME)
# through the replay driver: each seed and each saved crash input is a regression test.
set -eu
src=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
bld=${top_builddir:-.}
status=0
for name in ini params vk spa point proof r1cs wtns zkey snarkjs manifest; do
  dir="$src/tests/fuzz/corpus/$name"
  prog="$bld/tests/fuzz/replay_$name"
  if [ ! -d "$dir" ]; then echo "replay_corpora: $dir missing" >&2; status=1; continue; fi
  printf '%s: ' "$name"
  "$prog" "$dir" || { echo "replay_corpora: $name failed on its corpus ($dir)" >&2; status=1; }
done
exit $status
