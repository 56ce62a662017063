#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# proof-types.sh OUTDIR [SHAPES] -- every proof type a Filecoin storage provider's
# prover is sent (bench/shapes.c; `sealprov help bench gpu` names them), measured on one
# GPU: `sealprov bench gpu --shape NAME --json` for each name of SHAPES (comma-separated;
# default all), one process and one OUTDIR/NAME.json each (synthetic parameters of the
# type's partition circuit made on the GPU, then one job of its partitions through the
# module's scheduler), and OUTDIR/table.md: the rows of docs/PERFORMANCE.md's "Proof
# types" table from every OUTDIR/*.json there. A name whose JSON ended "ok" is not run
# again, so calls under a time limit resume where the last one stopped.
# The program: BUILD (a build tree, as dev/device-build.sh prints: on the GPU machine,
# carry .dist and .deb and run  B=$(sh dev/device-build.sh) && BUILD=$B sh
# dev/proof-types.sh "$OUT" porep-32g,ni-porep-32g), else this tree's _build (a
# --with-cuda build). Time on an H200: a 2^27 type makes its set in some 45 s (points
# on the GPU, the assignment on 16 CPUs) and proves about 1.5 s a partition, after a
# warm-up of two; NI-PoRep's 126 partitions take some 4 minutes in all, the 9 types
# about 11. Settable: PARTS (--shape-partitions: at most PARTS partitions a job, the
# rest counted at the median execute), WORKERS (2), ORDINAL (0).
set -u
out=${1:?usage: proof-types.sh OUTDIR [SHAPES]}
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/_build}
sealprov=$build/tools/sealprov
if [ ! -x "$sealprov" ]; then
  echo "proof-types.sh: no $sealprov: set BUILD (B=\$(sh dev/device-build.sh)) or build _build --with-cuda" >&2
  exit 2
fi
mkdir -p "$out"
# the valid names, as the option's own message lists them
all=$("$sealprov" bench gpu --shape '?' 2>&1 | sed -n 's/.*(valid: all, \([^)]*\)).*/\1/p' | tr -d ' ')
[ -n "$all" ] || { echo "proof-types.sh: $sealprov bench gpu knows no --shape (a build without CUDA?)" >&2; exit 2; }
shapes=${2:-all}
[ "$shapes" = all ] && shapes=$all
parts=
[ -n "${PARTS:-}" ] && parts="--shape-partitions $PARTS"
command -v nvidia-smi >/dev/null 2>&1 &&
  nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader > "$out/gpus.txt" 2>&1
rc=0
for s in $(echo "$shapes" | tr ',' ' '); do
  if grep -q '"status": "ok"' "$out/$s.json" 2>/dev/null; then
    echo "$s: measured already ($out/$s.json)"
    continue
  fi
  t0=$(date +%s)
  # shellcheck disable=SC2086
  "$sealprov" bench gpu --json --device "${ORDINAL:-0}" --workers "${WORKERS:-2}" --shape "$s" \
    $parts > "$out/$s.json.part" 2> "$out/$s.log"
  r=$?
  mv "$out/$s.json.part" "$out/$s.json"
  echo "$s: exit $r after $(($(date +%s) - t0)) s ($out/$s.json, $out/$s.log)"
  [ $r -eq 0 ] || { rc=1; tail -3 "$out/$s.log"; }
done
# the table's rows, one per measured type, in the order of the names
# shellcheck disable=SC2046 # the names are words
python3 - "$out" $(echo "$all" | tr ',' ' ') > "$out/table.md" <<'PY'
import json, os, sys
out, names = sys.argv[1], sys.argv[2:]
print("| proof type | partitions | constraints (domain) | parameter file (computed) | "
      "execute per partition (median) | one proof (whole job) | device peak | module host peak |")
print("|---|---|---|---|---|---|---|---|")
for n in names:
    try:
        doc = json.load(open(os.path.join(out, n + ".json")))
    except (OSError, ValueError):
        continue
    rows = [r for r in doc.get("results", []) if r.get("op") == "shape"]
    if doc.get("status") != "ok" or not rows:
        continue
    r = rows[0]
    job = "%.1f s" % r["full_job_s"]
    if r["full_job_scaled"]:
        job += " (%d of %d partitions run, the rest at the median)" % (r["partitions_run"], r["partitions"])
    est = " (estimated)" if r["figures_estimated"] else ""
    print("| %s %d GiB (`%s`) | %d | %s%s (2^%d) | %.1f GB | %.2f s | %s | %.1f GB | %.1f GB |" % (
        r["proof"], r["sector_gib"], r["shape"], r["partitions"], format(r["constraints"], ","),
        est, r["log_n"], r["params_file_bytes_computed"] / 1e9, r["execute_median_ms"] / 1e3,
        job, r["device_peak_bytes"] / 1e9, r["module_host_peak_bytes"] / 1e9))
PY
cat "$out/table.md"
exit $rc
