#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# layers.sh [TOP] -- data and includes flow one way (docs/design.md, "Layers"): every
# `#include "..."` of a file under plugin/, cuda/, kit/, tools/ or bench/ must name a
# header of its own folder or of a layer below it. An include of a higher layer (the CPU engine reading
# the INI parser's header, a parameter-file header that needs a CUDA one, the module
# calling into cuda/) fails the test with file:line, the header and both ranks.
#
# A header is found as the compiler finds it: next to the including file first, then
# under the build's include roots (below). A quoted include that names no file of the
# tree fails too, so that the table cannot go stale unnoticed.
set -eu
top=${1:-${top_srcdir:-.}}
cd "$top"

# Include roots, in the order of the build's -I flags (Makefile.am AM_CPPFLAGS, the C
# files of cuda/ and kit/, and SP_NVCC_FLAGS: the kernels keep bare names; then the
# CLI's own, tools/ and bench/).
roots="include plugin cuda kit plugin/base cuda/util cuda/ff cuda/ec cuda/subgroup cuda/spmv tools bench"

# rank FOLDER: the layer of a file's folder (the longest prefix in the table wins).
# Higher ranks sit on lower ones. Folders of one rank may not include each other
# (base and bls12_381 are two leaves; the CUDA kernels of one domain do not reach into
# another's). cuda/ is the CUDA backend: it sits on the engine interface (engine.h),
# and nothing in plugin/ may include it: the runtime reaches it only through the
# backend table (engine.h, sp_backend_for), so its rank is checked with `private`.
# Above the kit, the CLI's host (tools/), then the developer commands (kit/cli/) and the
# measuring apparatus (bench/), whose commands use the CLI's option parser, messages and
# host: each may include any layer below it.
rank() {
  case $1 in
    include) echo 0 ;;
    plugin/base*|plugin/bls12_381*) echo 10 ;;
    plugin/formats*) echo 20 ;;
    plugin/groth16*) echo 30 ;;
    plugin/engine*) echo 40 ;;
    cuda/ff*) echo 50 ;;
    cuda/ec*) echo 51 ;;
    cuda/util*) echo 52 ;;
    cuda/msm*|cuda/ntt*|cuda/subgroup*|cuda/spmv*|cuda/prep*) echo 53 ;;
    cuda/points*) echo 54 ;;
    cuda/backend*) echo 55 ;;
    plugin/runtime*) echo 60 ;;
    plugin/abi*) echo 70 ;;
    kit/cli*) echo 87 ;;
    kit*) echo 80 ;;
    tools*) echo 85 ;;
    bench*) echo 90 ;;
    *) echo "" ;;
  esac
}
# layer FOLDER: the name two folders must share to be one layer.
layer() {
  case $1 in
    plugin/*) echo "$1" | cut -d/ -f1-2 ;;
    cuda/*) echo "$1" | cut -d/ -f1-2 ;;
    kit/cli*) echo kit/cli ;;
    kit*) echo kit ;;
    tools*) echo tools ;;
    bench*) echo bench ;;
    *) echo "$1" ;;
  esac
}
# Headers under cuda/ are the backend's own: only cuda/ and kit/ include them.
private() {
  case $1 in cuda/*) return 0 ;; *) return 1 ;; esac
}

dirs=
for d in plugin cuda kit tools bench; do [ -d "$d" ] && dirs="$dirs $d"; done
# shellcheck disable=SC2086
files=$(find $dirs -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)
[ -n "$files" ] || { echo "layers: no sources under $top"; exit 1; }
bad=0
checked=0
for f in $files; do
  dir=$(dirname "$f")
  r_file=$(rank "$dir")
  if [ -z "$r_file" ]; then
    echo "$f: folder $dir has no rank in tests/tree/layers.sh (add it to the table)"
    bad=$((bad + 1))
    continue
  fi
  # line number and name of every quoted include
  incs=$(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" \
    | sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1 \2/') || true
  [ -n "$incs" ] || continue
  while read -r line name; do
    checked=$((checked + 1))
    hit=
    if [ -f "$dir/$name" ]; then
      hit=$dir/$name
    else
      for r in $roots; do
        if [ -f "$r/$name" ]; then hit=$r/$name; break; fi
      done
    fi
    if [ -z "$hit" ]; then
      echo "$f:$line: #include \"$name\": no such header in the tree"
      bad=$((bad + 1))
      continue
    fi
    # ./x/../y -> y (a few files reach a header with ../)
    hit=$(echo "$hit" | sed -e 's|/\./|/|g' -e ':a' -e 's|[^/][^/]*/\.\./||' -e 'ta')
    hdir=$(dirname "$hit")
    r_hdr=$(rank "$hdir")
    [ -n "$r_hdr" ] || { echo "$f:$line: \"$name\" ($hit): folder $hdir has no rank"; bad=$((bad + 1)); continue; }
    [ "$(layer "$dir")" = "$(layer "$hdir")" ] && continue
    if private "$hdir" && ! private "$dir" && [ "$r_file" -lt 80 ]; then
      echo "$f:$line: includes $hit: cuda/ is reached only through the engine interface (engine.h)"
      bad=$((bad + 1))
    elif [ "$r_hdr" -ge "$r_file" ]; then
      echo "$f:$line: includes $hit: a header of $(layer "$hdir") (rank $r_hdr) from $(layer "$dir") (rank $r_file): includes go down only"
      bad=$((bad + 1))
    fi
  done <<EOF
$incs
EOF
done
if [ "$bad" -gt 0 ]; then
  echo "layers: $bad upward or unknown include(s) (docs/design.md, \"Layers\")"
  exit 1
fi
echo "layers: $checked includes of $(echo "$files" | wc -l) files go down only"
