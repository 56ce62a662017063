#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# c2_validated.sh -- a .params file validated once per host, through create_SRS in fresh
# processes (c2_load: one create_SRS per process, as Curio's ffiselect children make
# it), on a CPU device: the first process checks every point and writes a validation
# record, the next ones use it (their log says "validated earlier"), a touched file is
# validated in full again, and a store that cannot be made is no error.
set -u
: "${top_builddir:?run through make check}"
: "${SEALPROV_PLUGIN:?SEALPROV_PLUGIN is not set (make check sets it)}"
SP="$top_builddir/tools/sealprov"
LOAD="$top_builddir/tests/compat/c2_load"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }
test -x "$LOAD" || { echo "SKIP: $LOAD not built"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/sp_c2v_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$SP" setup --constraints 300 --inputs 4 --partitions 1 --seed 12 --out "$T/p" >"$T/setup.out" 2>&1 ||
  { cat "$T/setup.out"; echo "FAIL: sealprov setup"; exit 1; }
ini() { # STORE: a CPU device, records in STORE
  printf '[provider]\nparams_validation_cache = %s\n[cpu0]\ntype = cpu\nthreads = 1\n' "$1" >"$T/c.ini"
}
run() { # NAME: one fresh process; its stderr (the module's log) in $T/NAME.err
  SEALPROV_CONFIG="$T/c.ini" SEALPROV_C2_LOG_LEVEL=info "$LOAD" "$T/p/circuit.params" \
    >"$T/$1.out" 2>"$T/$1.err" || { cat "$T/$1.err"; fail "$1: c2_load failed"; }
  grep -q '"create_SRS_s": [0-9]' "$T/$1.out" || fail "$1: no timing line: $(cat "$T/$1.out")"
}
has() { # NAME TEXT
  grep -qF "$2" "$T/$1.err" || { sed 's/^/  /' "$T/$1.err"; fail "$1: no \"$2\" in its log"; }
}
hasnt() { # NAME TEXT
  ! grep -qF "$2" "$T/$1.err" || { sed 's/^/  /' "$T/$1.err"; fail "$1: \"$2\" in its log"; }
}

ini "$T/store"
run first
has first "every point checked; validation record $T/store/validated/"
run second
has second "validated earlier: record $T/store/validated/"
has second "digest verified"
run third
has third "validated earlier"
# a touched file: validated in full again, and the record written again
touch -d '2001-02-03 04:05:06' "$T/p/circuit.params"
run touched
has touched "stale: mtime_ns is "
has touched "every point checked; validation record"
hasnt touched "validated earlier"
run after
has after "validated earlier"
# a store that cannot be made (its parent is a file): every point checked, no error
ini "$T/p/circuit.vk/store"
run nostore
has nostore "validation records not used"
hasnt nostore "validated earlier"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: first process validated and wrote the record; the next ones used it; a touched file was validated again"
