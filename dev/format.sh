#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# dev/format.sh check [REV]   fails when a C, CUDA or header file is not formatted as
#                             .clang-format says, or lacks its SPDX line; with REV, only
#                             the files changed since REV (git diff --name-only REV)
# dev/format.sh apply [FILE...]  formats the files (default: every tracked one) in place
# The formatter is clang-format 14, Debian 12's (`apt-get install clang-format`); another
# major version may break lines differently, so the check names the version it ran.
# Every tracked C, CUDA and header file, and every shell script, starts with (or has
# after its #! line) "SPDX-License-Identifier: Apache-2.0 OR MIT" (LICENSE).
set -eu
cd "$(dirname "$0")/.."
mode=${1:-check}
[ $# -gt 0 ] && shift

cf=
for c in clang-format-14 clang-format; do
  if command -v "$c" >/dev/null 2>&1; then cf=$c; break; fi
done
if [ -z "$cf" ]; then
  echo "dev/format.sh: clang-format is not installed (Debian: apt-get install clang-format)" >&2
  exit 2
fi
ver=$("$cf" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
[ "$ver" = 14 ] || echo "dev/format.sh: note: $cf is version $ver; the tree is formatted with 14" >&2

c_files() { git ls-files '*.c' '*.h' '*.cu' '*.cuh' "$@"; }

case $mode in
  apply)
    if [ $# -gt 0 ]; then "$cf" -i --style=file "$@"; else c_files | xargs "$cf" -i --style=file; fi
    ;;
  check)
    if [ $# -gt 0 ]; then
      list=$(git diff --name-only --diff-filter=ACMR "$1" -- '*.c' '*.h' '*.cu' '*.cuh' '*.sh')
    else
      list=$(c_files; git ls-files '*.sh')
    fi
    bad=0 n=0
    for f in $list; do
      [ -f "$f" ] || continue
      n=$((n + 1))
      if ! head -3 "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0 OR MIT'; then
        echo "$f: no SPDX-License-Identifier line in its first lines" >&2
        bad=$((bad + 1))
      fi
      case $f in *.sh) continue ;; esac
      if ! "$cf" --style=file --dry-run -Werror "$f" >/dev/null 2>&1; then
        echo "$f: not formatted (dev/format.sh apply $f; the first differences:)" >&2
        "$cf" --style=file "$f" | diff -u "$f" - | sed -n '3,14p' >&2 || true
        bad=$((bad + 1))
      fi
    done
    if [ "$bad" -gt 0 ]; then
      echo "dev/format.sh: $bad of $n files need attention ($cf $ver)" >&2
      exit 1
    fi
    echo "dev/format.sh: $n files formatted and licensed ($cf $ver)"
    ;;
  *)
    sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
