#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# c2_rust.sh -- libsealprov_c2 called through the supraseal-c2 crates' own Rust extern
# declarations (tests/compat/rust_host.rs), compiled with plain rustc and linked with
# -l dylib=sealprov_c2 as a crate's build.rs would: current Curio's (the 8-argument
# generate_groth16_proofs_c, the split API with gpu_index before pending_out, the GPU
# mutex; run with SEALPROV_C2_ARGS=8) and upstream's (6 arguments). Each proves a
# 10-partition job made by `sealprov setup` and compares with the vtable's proofs.
#
# rustc: $RUSTC, else the first rustc on PATH (Debian 12's rustc 1.63 is enough). When
# there is none the test is SKIPPED (exit 77, shown in make check's summary), unless
# CI=true or SEALPROV_REQUIRE_RUSTC=1, where it FAILS: dev/run installs rustc for the
# test modes, so CI always runs this part. In a sanitizer build the library's
# sanitizer runtime is preloaded (an uninstrumented program must load it first).
set -u
: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
: "${SEALPROV_PLUGIN:?SEALPROV_PLUGIN is not set (make check sets it)}"
SP="$top_builddir/tools/sealprov"
HOST="$top_builddir/tests/compat/c2_host"
LIBDIR="$top_builddir/compat/.libs"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }
test -x "$HOST" || { echo "SKIP: $HOST not built"; exit 77; }

RUSTC=${RUSTC:-rustc}
if ! command -v "$RUSTC" >/dev/null 2>&1; then
  if [ "${CI:-}" = true ] || [ "${SEALPROV_REQUIRE_RUSTC:-}" = 1 ]; then
    echo "FAIL: rustc ($RUSTC) not found, and this run requires the Rust callers (CI=${CI:-}," \
      "SEALPROV_REQUIRE_RUSTC=${SEALPROV_REQUIRE_RUSTC:-}): install Debian's rustc package"
    exit 1
  fi
  echo "SKIP: rustc ($RUSTC) not found: the Rust callers of libsealprov_c2 (current Curio's"
  echo "SKIP: and upstream's declarations) were NOT tested; install Debian's rustc package"
  exit 77
fi
echo "rustc: $(command -v "$RUSTC") ($("$RUSTC" --version 2>&1))"

# A sanitizer build: the library needs its runtime loaded first.
PRELOAD=
san=$(ldd "$LIBDIR/libsealprov_c2.so" 2>/dev/null | awk '/lib[at]san\.so/ {print $3; exit}')
if [ -n "$san" ]; then
  PRELOAD=$san
  echo "sanitizer build: preloading $san"
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/sp_c2rs_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

cat >"$T/two.ini" <<INI
[provider]
log_level = warn
[cpu0]
type = cpu
threads = 1
[cpu1]
type = cpu
threads = 1
INI

"$SP" setup --constraints 300 --inputs 4 --partitions 10 --seed 11 --out "$T/p" >"$T/setup.out" 2>&1 ||
  { cat "$T/setup.out"; echo "FAIL: sealprov setup"; exit 1; }
SEALPROV_CONFIG="$T/two.ini" "$HOST" --dump "$T/p" "$T/job.dump" || { echo "FAIL: c2_host --dump"; exit 1; }

run_rust() { # NAME RUSTC-FLAGS... ; then runs it (extra environment in $RUST_ENV)
  name=$1; shift
  if ! "$RUSTC" --edition 2021 -O "$@" -o "$T/$name" "$top_srcdir/tests/compat/rust_host.rs" \
       -L "native=$LIBDIR" -l dylib=sealprov_c2 >"$T/$name.rustc" 2>&1; then
    cat "$T/$name.rustc"
    fail "rustc $* tests/compat/rust_host.rs"
    return
  fi
  cat "$T/$name.rustc" # warnings, if any
  env $RUST_ENV ${PRELOAD:+LD_PRELOAD=$PRELOAD} \
    LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" SEALPROV_CONFIG="$T/two.ini" \
    "$T/$name" "$T/p/circuit.params" "$T/job.dump" || fail "$name (see above)"
}

echo "== current Curio's declarations (SEALPROV_C2_ARGS=8)"
RUST_ENV="SEALPROV_C2_ARGS=8" run_rust rust_host_curio --cfg curio
echo "== upstream supra_seal's declarations (SEALPROV_C2_ARGS unset)"
RUST_ENV= run_rust rust_host_upstream

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all Rust caller checks passed"
