#!/usr/bin/env python3
"""Writes a run summary of N simulated ranks (docs/summary.md) without any trace, in format 1
(the previous one, which the reader still opens: no arrivals, no run_exposed_comm_ns): rank r's
band is compute with an exposed-comm gap that moves with r, its path is PATH (a real
trace, for Enter) for rank 0 and a name that does not exist for the others.
usage: gen_summary.py OUT N PATH"""
import sys

out, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
cols, t0, span = 256, 1700000000000000000, 100_000_000
col = span // cols
with open(out, "w") as f:
    f.write('{"ovtrace_summary": 1, "t0_ns": %d, "t1_ns": %d, "columns": %d,\n "ranks": [' % (t0, t0 + span, cols))
    for r in range(n):
        gap = (r * 7) % cols
        band = "".join("0000ff00" if c in (gap, (gap + 1) % cols) else "ff000000" for c in range(cols))
        p = path if r == 0 else "/nonexistent/rank%d.json" % r
        f.write('%s\n  {"rank": %d, "path": "%s", "devices": [{"device": 0, "window_ns": %d, "busy_ns": %d, '
                '"idle_ns": 0, "compute_ns": %d, "comm_ns": %d, "overlap_ns": 0, "exposed_comm_ns": %d, '
                '"memory_ns": 0, "events": 100, "band": "%s"}], "comm": [["allreduce", %d, %d, %d, %d]]}'
                % ("," if r else "", r, p, span, span, span - 2 * col, 2 * col, 2 * col, band,
                   t0 + gap * col, t0 + (gap + 2) * col, col, col))
    f.write("\n ]\n}\n")
