#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR MIT
"""Reads a sealprov timeline (SEALPROV_TIMELINE file) and prints, per device, the time
its lock was held (execute), its idle share between its first and last execute, the
largest gap, and how long all devices were busy at once. Interval of a line:
[t - duration, t]."""
import sys

iv = {}
for line in open(sys.argv[1]):
    d = dict(kv.split('=', 1) for kv in line.split())
    if d['event'] == 'execute':
        t, du = float(d['t']), float(d['duration'])
        iv.setdefault(int(d['device']), []).append((t - du, t))
for k in iv:
    iv[k].sort()
start = min(a for v in iv.values() for a, _ in v)
end = max(b for v in iv.values() for _, b in v)
print("span of executes: %.3f s" % (end - start))
for k in sorted(iv):
    v = iv[k]
    busy = sum(b - a for a, b in v)
    own = v[-1][1] - v[0][0]
    gaps = [v[i + 1][0] - v[i][1] for i in range(len(v) - 1)] or [0.0]
    print("device %d: %d executes, busy %.3f s of %.3f s (idle %.1f %%), largest gap %.1f ms"
          % (k, len(v), busy, own, 100 * (1 - busy / own), 1000 * max(gaps)))
ev = sorted([(a, 1) for v in iv.values() for a, _ in v] + [(b, -1) for v in iv.values() for _, b in v])
cur, last, allbusy = 0, None, 0.0
for t, dl in ev:
    if cur == len(iv):
        allbusy += t - last
    cur += dl
    last = t
print("all %d devices busy at once: %.3f s (%.1f %% of the span)" % (len(iv), allbusy, 100 * allbusy / (end - start)))
