#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# comment_refs.sh [TOP] -- a comment says why the code is as it is, in words a reader of
# this tree can follow: the decision and at most one figure, never a pointer into the
# project's history. It fails on a comment of a product file (plugin/, cuda/, compat/,
# tools/, bench/, kit/, include/: .c .h .cu .cuh .mk .sh) that cites
#   - an issue of the tracker: "issue 24", "issues 22 and 23", "#36", "owner/repo#36";
#   - the lab notebook that left the tree: "NOTES.md" (with or without a version: "NOTES
#     v11"), "notebook", and its numbering ("v9's variant 2", "variant 4 of", "went in
#     v13").
# Only comments are read (C, C++ and CUDA: /* */ and //, outside string and character
# literals; shell and make: from a word that starts with #), so "#include" and "$#" are
# code, and a message that happens to hold such words is not judged here. Words without
# a number stay fine ("Curio's issue tracker", "an open issue"), as do addresses
# ("github.com/o/r/issues/36"). The measurements behind a decision live in
# docs/PERFORMANCE.md, the kernels' design in cuda/DESIGN.md, the rest in git.
#
# Before it reads the tree it checks itself on lines it must flag and lines it must
# pass, so that a pattern that stops matching cannot make the test pass vacuously.
set -eu
top=${1:-${top_srcdir:-.}}
cd "$top"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ERE on lower-cased comment text: what a comment must not cite
# (no backslashes: awk -v would take them as escapes)
# shellcheck disable=SC2016
pat='(^|[^a-z0-9_])issues?[[:space:]]+#?[0-9]|(^|[^a-z0-9_&${#])#[0-9]+([^0-9a-z_]|$)'
pat="$pat"'|[a-z0-9_.-]+/[a-z0-9_.-]+#[0-9]|notes[[:space:],]+v[0-9]|notes[.]md|(^|[^a-z])notebook'
# the notebook's own numbering, without its name: "v9's variant 2", "variant 4 of",
# "the losers went in v13"
pat="$pat"'|v[0-9]+.s variant|variants? [0-9]+ of|(went|removed|gone) in v[0-9]'

# comments FILE: "FILE:LINE: comment text" for every line that holds a comment
comments() {
  case $1 in
  *.sh | *.mk)
    # a comment starts at a word that begins with #: at the line's start or after a blank
    awk -v f="$1" '{
      if (match($0, /(^|[ \t])#/)) print f ":" NR ": " substr($0, RSTART)
    }' "$1"
    ;;
  *)
    awk -v f="$1" '{
      line = $0; out = ""; n = length(line); i = 1
      while (i <= n) {
        c = substr(line, i, 1); c2 = substr(line, i, 2)
        if (incom) {
          if (c2 == "*/") { incom = 0; i += 2; out = out " "; continue }
          out = out c; i++; continue
        }
        if (q != "") {
          if (c == "\\") { i += 2; continue }
          if (c == q) q = ""
          i++; continue
        }
        if (c2 == "/*") { incom = 1; i += 2; continue }
        if (c2 == "//") { out = out substr(line, i + 2); break }
        if (c == "\"" || c == "\047") { q = c; i++; continue }
        i++
      }
      q = "" # a literal never spans lines here
      if (out != "") print f ":" NR ": " out
    }' "$1"
    ;;
  esac
}

# flagged FILE...: the comment lines of FILEs that cite what pat names
flagged() {
  for f in "$@"; do comments "$f"; done | awk -v pat="$pat" '{
    text = $0; sub(/^[^:]*:[0-9]+: /, "", text)
    if (tolower(text) ~ pat) print
  }'
}

# ---- the test checks itself -------------------------------------------------------------
mkdir "$tmp/self"
cat >"$tmp/self/bad.c" <<'EOF'
/* the table of copies (cuda/NOTES.md v11) */
int a; /* since issue 16 */
// closes #36
/* fixed upstream (owner/repo#1200) */
/* Issues 22 and 23 removed them */
/*
 * the variants measured in
 * NOTES v5, with their counts
 */
/* from the lab notebook */
/* G2: blocks of 64 (v9's variant 2) */
/* measured fastest; the losers went in v13 */
EOF
cat >"$tmp/self/good.c" <<'EOF'
#include <stdio.h>
/* Curio's issue tracker has the report; an open issue upstream */
/* https://github.com/o/r/issues/36 and the spa format's v1 */
const char *m = "issue 5: not a comment";
int b = '#'; /* a character, then a comment without a citation */
/* the sum #a of the points, bit 1, the only encoding in v1; variant 2 is faster */
EOF
cat >"$tmp/self/bad.sh" <<'EOF'
x=1 # as issue 14 asked
#12: that one
EOF
cat >"$tmp/self/good.sh" <<'EOF'
[ $# -eq 1 ] || n=${#1}
echo "issue 7 is in a string, not in a comment"
EOF
want_bad=11
got=$(flagged "$tmp/self/bad.c" "$tmp/self/bad.sh" | wc -l)
if [ "$got" -ne "$want_bad" ]; then
  echo "comment_refs: self-check: $got of the $want_bad citations found:"
  flagged "$tmp/self/bad.c" "$tmp/self/bad.sh"
  exit 1
fi
if [ -n "$(flagged "$tmp/self/good.c" "$tmp/self/good.sh")" ]; then
  echo "comment_refs: self-check: legitimate text flagged:"
  flagged "$tmp/self/good.c" "$tmp/self/good.sh"
  exit 1
fi

# ---- the tree -----------------------------------------------------------------------------
dirs=
for d in plugin cuda compat tools bench kit include; do [ -d "$d" ] && dirs="$dirs $d"; done
[ -n "$dirs" ] || { echo "comment_refs: no product folder under $top"; exit 1; }
# shellcheck disable=SC2086
find $dirs -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \
  -o -name '*.mk' -o -name '*.sh' \) | sort >"$tmp/files"
n=$(wc -l <"$tmp/files")
[ "$n" -gt 0 ] || { echo "comment_refs: no files under$dirs"; exit 1; }
# Only files whose text names one of the words at all are parsed (fast on a clean tree).
# shellcheck disable=SC2046
grep -l -i -E 'issue|#[0-9]|notes|notebook' $(cat "$tmp/files") >"$tmp/cand" 2>/dev/null || true
: >"$tmp/bad"
# shellcheck disable=SC2046
if [ -s "$tmp/cand" ]; then flagged $(cat "$tmp/cand") >"$tmp/bad"; fi
if [ -s "$tmp/bad" ]; then
  cat "$tmp/bad"
  echo "comment_refs: $(wc -l <"$tmp/bad") comment(s) cite an issue number or the notebook:" \
    "say the decision (and at most one figure) instead; measurements go to" \
    "docs/PERFORMANCE.md, the kernels' design to cuda/DESIGN.md"
  exit 1
fi
echo "comment_refs: $n files of$dirs, no comment cites an issue number or the notebook"
