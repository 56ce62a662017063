#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# c2_post_load.sh -- a WinningPoSt under load through libsealprov_c2's split API
# (c2_post_load) on CPU devices at tiny sizes: dev/post-under-load.sh's dry run (DEVICE=cpu:
# cuzk's callers, a PoRep set of 2^10), then the program in --mode jobs on the files that
# run made. Every proof must verify, a proof with a changed input must be refused, and the
# report must have its fields; no timing is asserted (CPU devices of a shared machine).
set -u
: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
: "${SEALPROV_PLUGIN:?SEALPROV_PLUGIN is not set (make check sets it)}"
PROG="$top_builddir/tests/compat/c2_post_load"
test -x "$PROG" || { echo "SKIP: $PROG not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3 to read the report"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/sp_c2post_XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# check JSON MODE FILES(porep): the report's fields, every proof verified
check() {
  python3 - "$1" "$2" "$3" <<'PY' || fail "$1: the report (see above)"
import json, sys
path, mode, files = sys.argv[1:]
r = json.load(open(path))
bad = []
def need(cond, what):
    if not cond: bad.append(what)
need(r["status"] == "ok", "status %r" % r["status"])
need(r["mode"] == mode, "mode %r" % r["mode"])
for s in ("porep", "post"):
    for k in ("constraints", "log_domain", "inputs", "aux", "params", "params_bytes", "files",
              "make_s", "witness_s", "create_SRS_s"):
        need(k in r[s], "%s.%s" % (s, k))
need(r["porep"]["files"] == files, "porep.files %r, not %r" % (r["porep"]["files"], files))
for p in ("idle", "under_load"):
    g = r[p]
    for k in ("posts", "submit_to_proof_median_ms", "submit_to_proof_max_ms",
              "submit_to_start_returned_median_ms", "calls"):
        need(k in g, "%s.%s" % (p, k))
    need(len(g["calls"]) == g["posts"] == 2, "%s: %d calls" % (p, len(g["calls"])))
    for c in g["calls"]:
        for k in ("submit_s", "start_called_ms", "start_returned_ms", "proof_ms",
                  "stream_calls_under_way", "stream_partitions_before",
                  "stream_partitions_meanwhile"):
            need(k in c, "%s.calls[].%s" % (p, k))
        need(c["start_called_ms"] <= c["start_returned_ms"] <= c["proof_ms"],
             "%s: the times of a call are out of order: %r" % (p, c))
for p in ("with_post", "alone"):
    g = r["stream"][p]
    for k in ("partitions", "seconds", "partitions_per_s", "calls", "call_median_s"):
        need(k in g, "stream.%s.%s" % (p, k))
    need(g["partitions"] >= 1, "stream.%s proved no partition" % p)
need(r["stream"]["alone"]["partitions"] == r["stream"]["with_post"]["partitions"],
     "the stream alone proved another number of partitions")
v = r["verified"]
need(v["porep"] == v["porep_proofs"] > 0, "PoRep proofs verified: %d of %d" % (v["porep"], v["porep_proofs"]))
need(v["post"] == v["post_proofs"] == 5, "PoSt proofs verified: %d of %d" % (v["post"], v["post_proofs"]))
need(v["wrong_input_rejected"] is True, "a proof with a changed input was accepted")
if bad:
    print("%s:\n  %s" % (path, "\n  ".join(bad)))
    sys.exit(1)
print("%s: %s mode: %d PoRep and %d PoSt proofs verified" % (path, mode, v["porep"], v["post"]))
PY
}

small="--post-constraints 300 --post-inputs 4 --posts 2 --before 1 --gap-ms 10 --threads 2"

# the GPU machine's script, on a CPU device (cuzk's callers: 2 workers, one mutex)
DEVICE=cpu SIZE=10 BUILD="$top_builddir" DIR="$T/params" ARGS="$small" TOTAL=120 \
  sh "$top_srcdir/dev/post-under-load.sh" "$T/out" >"$T/script.out" 2>"$T/script.err" ||
  { cat "$T/script.err"; fail "dev/post-under-load.sh (DEVICE=cpu)"; }
[ -s "$T/out/post-under-load.json" ] && check "$T/out/post-under-load.json" cuzk made
grep -q '^c2_post_load: .*summary: cuzk, 2 worker(s), PoRep 2^10: WinningPoSt submit->proof idle median [0-9.]* ms max [0-9.]* ms, under load median [0-9.]* ms max [0-9.]* ms; PoRep stream [0-9.]* partitions/s alone, [0-9.]* with the PoSts; [0-9]*/[0-9]* PoRep and 5/5 PoSt proofs verified: ok$' "$T/script.err" ||
  { cat "$T/script.err"; fail "no summary line on stderr"; }

# a host without a queue of its own: jobs of 3 partitions from 2 threads, the PoSts
# started at once; the files of the run above are found again, not made
printf '[provider]\nparams_validation_cache = %s/records\n[cpu0]\ntype = cpu\nworkers = 2\n[cpu1]\ntype = cpu\n' \
  "$T/params" >"$T/two.ini"
# shellcheck disable=SC2086
SEALPROV_CONFIG="$T/two.ini" "$PROG" --dir "$T/params" --porep-log 10 --mode jobs \
  --partitions 3 --gpu-index 1 $small >"$T/jobs.json" 2>"$T/jobs.err" ||
  { cat "$T/jobs.err"; fail "c2_post_load --mode jobs"; }
check "$T/jobs.json" jobs found

# bad usage
"$PROG" --dir "$T/params" --mode fast >/dev/null 2>"$T/usage.err"
[ $? -eq 2 ] && grep -q -- '--mode "fast": cuzk or jobs' "$T/usage.err" ||
  { cat "$T/usage.err"; fail "--mode fast: not refused with exit 2"; }
"$PROG" --dir "$T/params" --porep-log 28 >/dev/null 2>"$T/usage.err"
[ $? -eq 2 ] && grep -q -- '--porep-log "28": not a number in 10..27' "$T/usage.err" ||
  { cat "$T/usage.err"; fail "--porep-log 28: not refused with exit 2"; }

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: PoSts under a PoRep stream through the split API, cuzk and jobs callers, every proof verified"
