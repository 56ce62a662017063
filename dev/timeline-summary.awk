# timeline-summary.awk -- per-device figures from a sealprov timeline (the text that
# SEALPROV_TIMELINE receives: one "t=... event=... job=... partition=... device=...
# worker=... duration=... [status=...]" line per event). POSIX awk (mawk, gawk, busybox).
#   awk -v label="size=24 gpus=2" -f dev/timeline-summary.awk timeline.txt
# prints, for dev/gpu-throughput.sh's summary:
#   run LABEL partitions=N span_s=S pps=P          partitions done over the span from
#                                                  the first start to the last done
#   dev LABEL device=D partitions=N busy_pct=B idle_pct=I maxgap_ms=G failed=F
# per device: N proofs done there; B the share of its own span (first execute start to
# last execute end) spent in execute (its device lock held), I = 100 - B, G the longest
# gap between two consecutive executes; F attempts there that ended in a requeue or a
# failed partition (a device fault, a failed self-check).
# An execute's interval is [t - duration, t]: a line's t is when its interval ended.
{
  t = ""; ev = ""; dev = ""; du = 0; st = ""
  for (i = 1; i <= NF; i++) {
    k = $i; v = $i
    sub(/=.*/, "", k); sub(/^[^=]*=/, "", v)
    if (k == "t") t = v + 0
    else if (k == "event") ev = v
    else if (k == "device") dev = v
    else if (k == "duration") du = v + 0
    else if (k == "status") st = v
  }
  if (ev == "" || t == "") next
  if (ev == "start" && (first_start == "" || t < first_start)) first_start = t
  if (ev == "done") {
    done++
    if (last_done == "" || t > last_done) last_done = t
    ndone[dev]++
  }
  if (ev == "execute") {
    n = ++nx[dev]
    xs[dev, n] = t - du
    xe[dev, n] = t
    devs[dev] = 1
  }
  # an attempt that ended badly on a device: requeued elsewhere, or the partition failed
  if ((ev == "requeued" || ev == "failed") && dev != "-1") nfail[dev]++
}
function sort_dev(d, n,    i, j, a, b) { # insertion sort of d's executes by start
  for (i = 2; i <= n; i++) {
    a = xs[d, i]; b = xe[d, i]
    for (j = i - 1; j >= 1 && xs[d, j] > a; j--) { xs[d, j + 1] = xs[d, j]; xe[d, j + 1] = xe[d, j] }
    xs[d, j + 1] = a; xe[d, j + 1] = b
  }
}
END {
  span = (done > 0 && first_start != "") ? last_done - first_start : 0
  pps = 0
  if (span > 0) pps = done / span
  printf "run %s partitions=%d span_s=%.3f pps=%.4f\n", label, done, span, pps
  # devices in numeric order
  nd = 0
  for (d in devs) order[++nd] = d + 0
  for (i = 2; i <= nd; i++) {
    a = order[i]
    for (j = i - 1; j >= 1 && order[j] > a; j--) order[j + 1] = order[j]
    order[j + 1] = a
  }
  for (k = 1; k <= nd; k++) {
    d = order[k] ""
    n = nx[d]
    sort_dev(d, n)
    busy = 0; gap = 0
    for (i = 1; i <= n; i++) {
      busy += xe[d, i] - xs[d, i]
      if (i > 1 && xs[d, i] - xe[d, i - 1] > gap) gap = xs[d, i] - xe[d, i - 1]
    }
    own = xe[d, n] - xs[d, 1]
    bp = 100
    if (own > 0) bp = 100 * busy / own
    printf "dev %s device=%s partitions=%d busy_pct=%.2f idle_pct=%.2f maxgap_ms=%.1f failed=%d\n",
           label, d, ndone[d] + 0, bp, 100 - bp, 1000 * gap, nfail[d] + 0
  }
}
