#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# no_tuning_env.sh -- the module is tuned by its INI file and by compile-time constants,
# never by environment variables, and it writes nothing to stdout or stderr: it logs
# only through the host's callback (docs/design.md rule 12). Earlier versions read 12
# SP_GPU_* variables (kernel variants, staging sizes, profiles, test hooks); what each
# became is in docs/configuration.md, "Environment".
#
# 1. The sources of the module (plugin/, cuda/), comments stripped by the C
#    preprocessor: every getenv names one of the variables of the list below, for the
#    reason given there; nothing writes to stdout or stderr. Code compiled only into the
#    measuring build of the phase profiles (#ifdef SP_GPU_PROFILE; configure
#    NVCCFLAGS=-DSP_GPU_PROFILE) is left out: step 2 shows that none of it is in the
#    library.
# 2. The library (SEALPROV_PLUGIN, the build's sealprov.so) refers to none of the C
#    library's stdout/stderr streams or writers and holds no "SP_GPU_" or "SP_SG_"
#    string (a variable read by name would carry its name). Where the library does
#    refer to one, the module's own objects (the convenience libraries it is linked
#    from) must not: a runtime the toolchain links in statically may, and the test
#    says so in a note.
set -eu
src=${top_srcdir:?top_srcdir is not set (make check sets it)}
so=${MODULE_SO:-${SEALPROV_PLUGIN:-}}
NM=${NM:-nm}
CPP_CMD=${CPP_CMD:-cc -x c -fpreprocessed -dD -E -P}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# FILE VARIABLE: the environment variables the module reads, and why (each is in
# docs/configuration.md, "Environment").
cat > "$tmp/allowed" <<'EOF'
plugin/runtime/topo.c SEALPROV_SYSFS_ROOT
plugin/runtime/resolve.c CUDA_VISIBLE_DEVICES
plugin/formats/manifest.c FIL_PROOFS_PARAMETER_CACHE
plugin/formats/srs.c FIL_PROOFS_PARAMETER_CACHE
plugin/formats/vrecord.c XDG_CACHE_HOME
plugin/formats/vrecord.c HOME
EOF
# SEALPROV_SYSFS_ROOT: a test hook (fake sysfs trees for the NUMA tests); an absolute
#   path under 512 bytes, else ignored with a WARN through the host's log (pool.c).
# CUDA_VISIBLE_DEVICES: read, never set, to quote it in "GPU not present" messages.
# FIL_PROOFS_PARAMETER_CACHE: where Filecoin keeps its parameters (docs/formats.md): a
#   bare file name is looked up there.
# XDG_CACHE_HOME, HOME: where [provider] params_validation_cache = auto keeps the
#   records of validated parameter files (the user's cache folder, as XDG defines it).

# ---- 1. the sources ---------------------------------------------------------------------
# Prints "FILE: LINE" for each line of FILE's code outside profile-only code.
code_of() {
  $CPP_CMD "$1" 2>/dev/null | awk -v f="${1#"$src"/}" '
    # a stack of conditionals: P = inside SP_GPU_PROFILE code, N = its #else of #ifdef,
    # - = another condition; a line is profile-only when any level says P
    function prof(  i) { for (i = 1; i <= n; i++) if (st[i] == "P") return 1; return 0 }
    /^[ \t]*#[ \t]*ifdef[ \t]+SP_GPU_PROFILE([ \t]|$)/ { st[++n] = "P"; next }
    /^[ \t]*#[ \t]*ifndef[ \t]+SP_GPU_PROFILE([ \t]|$)/ { st[++n] = "N"; next }
    /^[ \t]*#[ \t]*if/ { st[++n] = "-"; next }
    /^[ \t]*#[ \t]*else/ { if (st[n] == "P") st[n] = "N"; else if (st[n] == "N") st[n] = "P"; next }
    /^[ \t]*#[ \t]*elif/ { st[n] = "-"; next }
    /^[ \t]*#[ \t]*endif/ { if (n > 0) n--; next }
    !prof() { print f ": " $0 }'
}
find "$src/plugin" "$src/cuda" -type f \
  \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' \) | sort |
  while read -r f; do code_of "$f"; done > "$tmp/code"
[ -s "$tmp/code" ] || { echo "no_tuning_env: no source read under $src (is '$CPP_CMD' there?)"; exit 1; }
grep -q '^plugin/abi/module.c: ' "$tmp/code" || { echo "no_tuning_env: plugin/abi/module.c not read"; exit 1; }

# getenv: each call with a literal name from the list; a computed name is refused
grep -E '(^|[^A-Za-z0-9_])(secure_)?getenv[[:space:]]*\(' "$tmp/code" > "$tmp/getenv" || true
while IFS= read -r line; do
  file=${line%%: *}
  var=$(printf '%s\n' "$line" | sed -n 's/.*getenv[[:space:]]*([[:space:]]*"\([^"]*\)".*/\1/p')
  if [ -z "$var" ]; then
    echo "FAIL: getenv of a computed name (list the variable here and in docs/configuration.md): $line"
    fail=1
  elif ! grep -qx "$file $var" "$tmp/allowed"; then
    echo "FAIL: $file reads \$$var; tuning belongs in the INI (docs/configuration.md) or in a constant: $line"
    fail=1
  fi
done < "$tmp/getenv"

# writes to stdout/stderr, whatever the function
grep -E '(^|[^A-Za-z0-9_])(stderr|stdout|printf|vprintf|puts|putchar|perror|cerr|cout|clog)([^A-Za-z0-9_]|$)' \
  "$tmp/code" | grep -vE 'format[[:space:]]*\([[:space:]]*printf[[:space:]]*,' > "$tmp/writes" || true
grep -E '(^|[^A-Za-z0-9_])write[[:space:]]*\([[:space:]]*(1|2|STDOUT_FILENO|STDERR_FILENO)[[:space:]]*,' \
  "$tmp/code" >> "$tmp/writes" || true
if [ -s "$tmp/writes" ]; then
  echo "FAIL: the module writes to stdout/stderr (it logs through the host's callback, base/log.h):"
  sed 's/^/  /' "$tmp/writes"
  fail=1
fi
[ "$fail" -ne 0 ] ||
  echo "sources: $(wc -l < "$tmp/getenv") getenv call(s), all listed; no stdout/stderr writes" \
    "($(wc -l < "$tmp/code") lines of plugin/ and cuda/, profile-only code left out)"

# ---- 2. the library ---------------------------------------------------------------------
if [ -z "$so" ] || [ ! -f "$so" ]; then
  echo "no_tuning_env: the module ($so) is not built"
  exit 1
fi
"$NM" -D --undefined-only "$so" | awk '{ sub(/@.*/, "", $NF); print $NF }' | sort -u > "$tmp/undef"
grep -q '^snprintf$' "$tmp/undef" || { echo "no_tuning_env: $NM -D $so lists no snprintf: not the module?"; exit 1; }
bad_re='stdout|stderr|printf|vprintf|puts|putchar|perror|psignal|psiginfo|__printf_chk|__vprintf_chk|dprintf|vdprintf|__dprintf_chk|__vdprintf_chk|err|errx|verr|verrx|warn|warnx|vwarn|vwarnx|error|error_at_line|_ZSt4cerr|_ZSt4cout|_ZSt4clog'
grep -xE "$bad_re" "$tmp/undef" > "$tmp/bad_syms" || true
if [ -s "$tmp/bad_syms" ]; then
  # Whose reference? The module's own objects are the convenience libraries it is linked
  # from (SP_MODULE_LIBS, set by make check); a runtime that the toolchain links in
  # statically is not our code (seen in the build on the H200 machine, Ubuntu 24.04:
  # neither our objects nor that toolkit's libcudart_static.a refer to stderr, the
  # module does).
  own=""
  for la in ${SP_MODULE_LIBS:-}; do
    a="${top_builddir:-.}/$(dirname "$la")/.libs/$(basename "$la" .la).a"
    [ -f "$a" ] && own="$own $a"
  done
  if [ -z "$own" ]; then
    echo "FAIL: $so refers to writers of stdout/stderr: $(tr '\n' ' ' < "$tmp/bad_syms")"
    fail=1
  else
    # shellcheck disable=SC2086
    "$NM" -A --undefined-only $own 2>/dev/null | awk '{ sub(/@.*/, "", $NF); print $1, $NF }' |
      grep -E " ($bad_re)\$" > "$tmp/own_bad" || true
    if [ -s "$tmp/own_bad" ]; then
      echo "FAIL: the module's objects refer to writers of stdout/stderr:"
      sed 's/^/  /' "$tmp/own_bad" | head -20
      fail=1
    else
      echo "note: $so refers to $(tr '\n' ' ' < "$tmp/bad_syms")but none of the module's own" \
        "objects does (the $(echo $own | wc -w) convenience libraries of SP_MODULE_LIBS): a runtime" \
        "the toolchain links in statically brings them"
    fi
  fi
fi
strings -a "$so" | grep -E 'SP_GPU_|SP_SG_' > "$tmp/bad_strings" || true
if [ -s "$tmp/bad_strings" ]; then
  echo "FAIL: $so holds the names of removed tuning variables or variant switches:"
  sed 's/^/  /' "$tmp/bad_strings" | head -20
  fail=1
fi
[ "$fail" -eq 0 ] || exit 1
if [ -s "$tmp/bad_syms" ]; then
  echo "library: the module's own objects refer to no stdout/stderr writer (the note above);" \
    "no SP_GPU_/SP_SG_ string in $so"
else
  echo "library: no stdout/stderr writer among the $(wc -l < "$tmp/undef") undefined symbols of $so," \
    "no SP_GPU_/SP_SG_ string"
fi
