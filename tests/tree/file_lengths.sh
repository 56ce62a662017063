#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# file_lengths.sh [TOP] -- one concept per file (docs/design.md, "Layers"): no file of
# the product folders (plugin/, cuda/, compat/, tools/, bench/, kit/) is over 800 lines,
# so that a reader can hold each. A file that grows past it is split by what it does.
#
# Sources, headers, build fragments, scripts and documents are read (not what a build
# writes into the folders). The exceptions below name a file and why; an exception for
# a file that is gone or no longer over the limit fails too, so the list cannot go stale.
set -eu
top=${1:-${top_srcdir:-.}}
cd "$top"
max=800

# FILE: why it may be longer, for now (none today)
exceptions='
'

dirs=
for d in plugin cuda compat tools bench kit; do [ -d "$d" ] && dirs="$dirs $d"; done
[ -n "$dirs" ] || { echo "file_lengths: no product folder under $top"; exit 1; }
# shellcheck disable=SC2086
files=$(find $dirs -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \
  -o -name '*.mk' -o -name '*.sh' -o -name '*.md' -o -name '*.in' -o -name '*.py' \) | sort)
[ -n "$files" ] || { echo "file_lengths: no files under$dirs"; exit 1; }
bad=0
n=0
longest=0
for f in $files; do
  n=$((n + 1))
  lines=$(wc -l <"$f")
  excepted=no
  for e in $exceptions; do [ "$e" = "$f" ] && excepted=yes; done
  if [ "$lines" -gt "$max" ]; then
    if [ "$excepted" = no ]; then
      echo "$f: $lines lines, over $max: split it by what it does"
      bad=$((bad + 1))
    fi
  else
    [ "$excepted" = no ] || { echo "$f: $lines lines, no longer over $max: remove its exception from $0"; bad=$((bad + 1)); }
    [ "$lines" -le "$longest" ] || longest=$lines
  fi
done
for e in $exceptions; do
  [ -f "$e" ] || { echo "$e: not there: remove its exception from $0"; bad=$((bad + 1)); }
done
if [ "$bad" -gt 0 ]; then
  echo "file_lengths: $bad file(s) (docs/design.md, \"Layers\": one concept per file)"
  exit 1
fi
echo "file_lengths: $n files of$dirs, none over $max lines (the longest: $longest)"
