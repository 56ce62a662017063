#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# recipe.sh -- docs/snarkjs.md's recipe ("From a circuit to a proof") works as written:
# every sh block of that section, taken from the page as it stands and run in one shell
# in an empty directory, with the built sealprov on PATH. The installation lines run
# too, against stand-ins for apt-get and npm that download nothing: apt-get must be
# asked for update and for nodejs and npm; npm for `install` of circom2 and snarkjs at
# exactly the versions tests/snarkjs/package-lock.json pins, which it then provides by
# linking ./node_modules to the pinned copies in tests/snarkjs (installed by `npm ci`
# there, as tests/snarkjs/test_snarkjs.sh needs). Skips (77) without node or those
# packages, as test_snarkjs.sh does.
set -u
: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
SP="$top_builddir/tools/sealprov"
D=$(cd "$top_srcdir/tests/snarkjs" && pwd)
doc="$top_srcdir/docs/snarkjs.md"
test -x "$SP" || { echo "SKIP: $SP not built"; exit 77; }
command -v node >/dev/null 2>&1 || { echo "SKIP: node not installed"; exit 77; }
if ! test -x "$D/node_modules/.bin/snarkjs" || ! test -x "$D/node_modules/.bin/circom2"; then
  echo "SKIP: snarkjs/circom2 not installed: run (cd $D && npm ci), or dev/run test"
  exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/sp_recipe_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
mkdir "$T/bin" "$T/work"
ln -s "$(cd "$(dirname "$SP")" && pwd)/sealprov" "$T/bin/sealprov"

# Every sh block of the section, in order, as one script.
awk '/^## / { on = ($0 ~ /^## From a circuit to a proof/); next }
     on && /^```sh$/ { inb = 1; next } inb && /^```$/ { inb = 0; next } inb' "$doc" >"$T/recipe.sh"
grep -q '^circom2 ' "$T/recipe.sh" || { echo "FAIL: no recipe found in $doc"; exit 1; }
grep -q '^npm install ' "$T/recipe.sh" || { echo "FAIL: the recipe does not install its tools"; exit 1; }

# The stand-ins. Each logs its call; a call the page should not make fails the recipe.
cat >"$T/bin/apt-get" <<'SH'
#!/bin/sh
echo "apt-get $*" >>"$RECIPE_LOG"
case $1 in
  update) [ $# -eq 1 ] || { echo "apt-get stand-in: update takes no arguments: $*" >&2; exit 100; } ;;
  install)
    shift
    pkgs=" "
    for a in "$@"; do case $a in -*) ;; *) pkgs="$pkgs$a " ;; esac; done
    case " $* " in *" -y "*) ;; *) echo "apt-get stand-in: install without -y stops to ask" >&2; exit 100 ;; esac
    for p in nodejs npm; do
      case $pkgs in *" $p "*) ;; *) echo "apt-get stand-in: $p is not installed by: apt-get install $*" >&2; exit 100 ;; esac
    done ;;
  *) echo "apt-get stand-in: unexpected command: $*" >&2; exit 100 ;;
esac
SH
cat >"$T/bin/npm" <<'SH'
#!/bin/sh
echo "npm $*" >>"$RECIPE_LOG"
[ "${1:-}" = install ] || { echo "npm stand-in: only npm install is expected: $*" >&2; exit 1; }
shift
n=0
for a in "$@"; do
  case $a in
    -*) continue ;;
    *@*) ;;
    *) echo "npm stand-in: $a has no pinned version (NAME@VERSION)" >&2; exit 1 ;;
  esac
  # the version package-lock.json pins for node_modules/NAME
  pinned=$(node -e 'const l = require(process.argv[1]).packages["node_modules/" + process.argv[2]];
                    process.stdout.write(l ? l.version : "")' "$RECIPE_LOCK" "${a%@*}") || exit 1
  [ "$pinned" = "${a##*@}" ] ||
    { echo "npm stand-in: $a, but the tests pin ${a%@*}@${pinned:-(nothing)}" >&2; exit 1; }
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "npm stand-in: npm install names no package" >&2; exit 1; }
[ -e node_modules ] || ln -s "$RECIPE_MODULES" node_modules
SH
chmod +x "$T/bin/apt-get" "$T/bin/npm"

echo "running docs/snarkjs.md's recipe ($(wc -l <"$T/recipe.sh") lines) in $T/work"
if ! (cd "$T/work" && RECIPE_LOG="$T/calls" RECIPE_LOCK="$D/package-lock.json" \
  RECIPE_MODULES="$D/node_modules" PATH="$T/bin:$PATH" sh -eux "$T/recipe.sh") >"$T/out" 2>&1; then
  tail -30 "$T/out"
  echo "FAIL: recipe.sh: docs/snarkjs.md's recipe failed (its output above)"
  exit 1
fi
cat "$T/calls"
grep -q '^apt-get install .*nodejs' "$T/calls" || { echo "FAIL: recipe.sh: the recipe does not install node"; exit 1; }
grep -q '^npm install ' "$T/calls" || { echo "FAIL: recipe.sh: the recipe does not install circom2 and snarkjs"; exit 1; }
grep -q 'OK' "$T/out" || { tail -20 "$T/out"; echo "FAIL: recipe.sh: snarkjs did not say OK"; exit 1; }
grep -qi 'valid' "$T/out" || { tail -20 "$T/out"; echo "FAIL: recipe.sh: sealprov verify said nothing valid"; exit 1; }
tail -4 "$T/out"
echo "PASS: recipe.sh"
