#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# libsealprov_c2 exports exactly the supraseal-c2 entry points and sealprov's two
# conversions for C hosts (sealprov_c2_*, compat/c2_convert.c), all functions (T); the
# BLS12-381 code and everything else linked in stays hidden.
set -eu
: "${top_builddir:?run through make check}"
lib="$top_builddir/compat/.libs/libsealprov_c2.so"
[ -f "$lib" ] || { echo "no library at $lib"; exit 1; }
command -v nm >/dev/null 2>&1 || { echo "nm not found: skipping"; exit 77; }
want="clone_SRS
create_SRS
create_gpu_mutex
destroy_gpu_mutex
destroy_pending_proof
drop_SRS
evict_SRS
finalize_groth16_proof_c
generate_groth16_proofs_c
generate_groth16_proofs_start_c
sealprov_c2_fr_from_canonical
sealprov_c2_proof_compress"
got=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | LC_ALL=C sort)
echo "exported by $lib:"
echo "$got"
if [ "$got" != "$want" ]; then
  echo "FAIL: expected exactly these symbols:"
  echo "$want"
  exit 1
fi
types=$(nm -D --defined-only "$lib" | awk 'NF >= 3 && $2 != "T" { print $3 " (" $2 ")" }')
if [ -n "$types" ]; then
  echo "FAIL: not functions: $types"
  exit 1
fi
echo "exactly the 10 supraseal-c2 entry points and the 2 conversions"
