#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# c2_rust.sh -- libsealprov_c2 called through the supraseal-c2 crates' own Rust extern
# declarations (tests/compat/rust_host.rs), compiled with plain rustc and linked with
# what the crate's replacement build script (compat/rust/build.rs) prints: current
# Curio's (the 8-argument generate_groth16_proofs_c, the split API with gpu_index before
# pending_out, the GPU mutex; run with SEALPROV_C2_ARGS=8) and upstream's (6
# arguments). Each proves a 10-partition job made by `sealprov setup` and compares with
# the vtable's proofs.
#
# The build script is compiled with rustc and run with the environment cargo gives a
# build script (OUT_DIR, TARGET, HOST, PROFILE, CARGO_MANIFEST_DIR, CARGO_CFG_*): found
# through SEALPROV_C2_LIB_DIR and through pkg-config (a sealprov-c2.pc like the built
# one, whose moduledir is this build's library), and its errors: not installed,
# pkg-config missing, a directory without the library or with the runtime name only, a
# relative directory, a target other than 64-bit Linux, cross-compiling without the
# variable. cargo itself is not run: this project's machines cannot reach crates.io.
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

# ---- the crate's build script ----
BS="$T/build_script_build"
"$RUSTC" --edition 2021 --crate-name build_script_build --crate-type bin -O -o "$BS" \
  "$top_srcdir/compat/rust/build.rs" >"$T/bs.rustc" 2>&1 ||
  { cat "$T/bs.rustc"; echo "FAIL: rustc compat/rust/build.rs"; exit 1; }
cat "$T/bs.rustc" # warnings, if any
host=$("$RUSTC" -vV | sed -n 's/^host: //p')
arch=${host%%-*}
mkdir -p "$T/crate/src" "$T/out" "$T/nopc" "$T/pc" "$T/empty" "$T/runonly"
ln -s "$LIBDIR/libsealprov_c2.so.0" "$T/runonly/libsealprov_c2.so.0"
# this build's library, described as an installed sealprov-c2.pc would describe it
sed "s|^moduledir=.*|moduledir=$LIBDIR|" "$top_builddir/compat/sealprov-c2.pc" >"$T/pc/sealprov-c2.pc"
bs() { # NAME VAR=VALUE...: runs the build script as cargo would, in the crate's directory
  name=$1; shift
  (cd "$T/crate" && env -i PATH="$PATH" OUT_DIR="$T/out" TARGET="$host" HOST="$host" \
    PROFILE=release OPT_LEVEL=3 DEBUG=false NUM_JOBS=2 RUSTC="$RUSTC" \
    CARGO_MANIFEST_DIR="$T/crate" CARGO_PKG_NAME=supraseal-c2 CARGO_PKG_VERSION=0.1.2 \
    CARGO_CFG_TARGET_OS=linux CARGO_CFG_TARGET_FAMILY=unix CARGO_CFG_TARGET_ARCH="$arch" \
    CARGO_CFG_TARGET_POINTER_WIDTH=64 CARGO_CFG_TARGET_ENDIAN=little CARGO_CFG_TARGET_ENV=gnu \
    PKG_CONFIG_LIBDIR="$T/nopc" "$@" "$BS") >"$T/$name.out" 2>"$T/$name.err"
}
has() { # FILE TEXT
  grep -qF -- "$2" "$1" || { cat "$1"; fail "$(basename "$1"): no \"$2\""; }
}
found() { # NAME SOURCE: the script succeeded and printed the link lines for $LIBDIR
  has "$T/$1.out" "cargo:rustc-link-search=native=$LIBDIR"
  has "$T/$1.out" "cargo:rustc-link-lib=dylib=sealprov_c2"
  has "$T/$1.out" "cargo:rerun-if-env-changed=SEALPROV_C2_LIB_DIR"
  # this build tree is in no loader cache: the script says how to make programs find it
  has "$T/$1.out" "cargo:warning=libsealprov_c2 from $LIBDIR ($2): the runtime loader does not know that directory"
}
refused() { # NAME TEXT: the script failed, with an error that says TEXT
  grep -q '^cargo:rustc-link' "$T/$1.out" && fail "$1: link lines printed"
  has "$T/$1.err" "error: supraseal-c2 (sealprov's build.rs): "
  has "$T/$1.err" "$2"
}
echo "== compat/rust/build.rs"
bs env SEALPROV_C2_LIB_DIR="$LIBDIR" || { cat "$T/env.err"; fail "build.rs with SEALPROV_C2_LIB_DIR"; }
found env SEALPROV_C2_LIB_DIR
if command -v pkg-config >/dev/null 2>&1; then
  bs pc PKG_CONFIG_PATH="$T/pc" || { cat "$T/pc.err"; fail "build.rs with pkg-config"; }
  found pc "pkg-config sealprov-c2"
  bs none && fail "build.rs without the library succeeded"
  refused none "libsealprov_c2 not found: SEALPROV_C2_LIB_DIR is not set and \`pkg-config --variable=moduledir sealprov-c2\` gave nothing"
  has "$T/none.err" "sudo make install puts sealprov-c2.pc"
else
  echo "pkg-config not installed: its case not run"
fi
bs nopc PKG_CONFIG="$T/no-such-pkg-config" && fail "build.rs without pkg-config succeeded"
refused nopc "SEALPROV_C2_LIB_DIR is not set, and $T/no-such-pkg-config could not run"
bs emptydir SEALPROV_C2_LIB_DIR="$T/empty" && fail "build.rs with an empty directory succeeded"
refused emptydir "$T/empty (from SEALPROV_C2_LIB_DIR) has no libsealprov_c2.so"
bs runonly SEALPROV_C2_LIB_DIR="$T/runonly" && fail "build.rs without libsealprov_c2.so succeeded"
refused runonly "has libsealprov_c2.so.0 but not libsealprov_c2.so, the name the linker needs"
bs relative SEALPROV_C2_LIB_DIR=compat/.libs && fail "build.rs with a relative directory succeeded"
refused relative "SEALPROV_C2_LIB_DIR=compat/.libs: must be an absolute directory"
bs macos SEALPROV_C2_LIB_DIR="$LIBDIR" CARGO_CFG_TARGET_OS=macos && fail "build.rs for macOS succeeded"
refused macos "(macos, 64-bit): libsealprov_c2 is built for 64-bit Linux only"
bs cross TARGET=aarch64-unknown-linux-gnu HOST=x86_64-unknown-linux-gnu && fail "cross build succeeded"
refused cross "cross-compiling (TARGET aarch64-unknown-linux-gnu, HOST x86_64-unknown-linux-gnu)"
# The Rust callers below link with exactly what the script printed (pkg-config's run
# where it ran), as cargo passes a build script's link lines to rustc.
links=$T/pc.out; [ -s "$links" ] || links=$T/env.out
LINK_ARGS=$(sed -n -e 's/^cargo:rustc-link-search=\(.*\)$/-L \1/p' \
  -e 's/^cargo:rustc-link-lib=\(.*\)$/-l \1/p' "$links" | tr '\n' ' ')
echo "link arguments from the build script: $LINK_ARGS"

run_rust() { # NAME RUSTC-FLAGS... ; then runs it (extra environment in $RUST_ENV)
  name=$1; shift
  # shellcheck disable=SC2086 # LINK_ARGS is a list of arguments without blanks in them
  if ! "$RUSTC" --edition 2021 -O "$@" -o "$T/$name" "$top_srcdir/tests/compat/rust_host.rs" \
       $LINK_ARGS >"$T/$name.rustc" 2>&1; then
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
