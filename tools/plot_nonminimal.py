#!/usr/bin/python3
"""Makespan and speed-up of one tensor spread over k paths (the non-minimal routing study).

    tools/plot_nonminimal.py POINTS.csv -o FIGURE.png [--title TEXT]

POINTS.csv is the points.csv that `loom sweep configs/tsp/collectives/nonminimal.sweep.json` writes: one column
per axis (the tensor size, `workload.transfers.0.bytes`, and the path cap, `scheduler.max_paths`), one per
report pointer (the makespan column ends in `makespan_ps`), then `status`. Left panel: makespan against the
tensor size, one curve per k (log-log). Right panel: speed-up over k = 1 against k, one curve per tensor size.
Runs whose status is not ok are left out.
"""

import argparse
import csv
import math
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "kB": 1000, "MB": 1000 ** 2, "GB": 1000 ** 3}


def size_bytes(text):
    m = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2) not in UNITS:
        sys.exit(f"plot_nonminimal: cannot read the size {text!r}")
    return float(m.group(1)) * UNITS[m.group(2)]


def column(columns, suffix):
    for c in columns:
        if c.endswith(suffix):
            return c
    sys.exit(f"plot_nonminimal: no column ending in {suffix}; have {columns}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("points")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--title", default="One tensor over k paths in a node (minimal + two-hop detours)")
    args = ap.parse_args()
    with open(args.points, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit("plot_nonminimal: no points")
    cols = list(rows[0].keys())
    size_col = column(cols, "bytes")
    k_col = column(cols, "max_paths")
    ms_col = column(cols, "makespan_ps")
    data = {}  # (bytes, k) -> makespan ns
    for r in rows:
        if r.get("status", "ok") != "ok":
            continue
        try:
            v = float(r[ms_col])
        except ValueError:
            continue
        if math.isfinite(v):
            data[(size_bytes(r[size_col]), int(float(r[k_col])))] = v / 1000.0
    if not data:
        sys.exit("plot_nonminimal: no successful points")
    sizes = sorted({s for s, _ in data})
    ks = sorted({k for _, k in data})
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    for k in ks:
        xs = [s for s in sizes if (s, k) in data]
        left.plot(xs, [data[(s, k)] for s in xs], marker="o", label=f"k = {k}")
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel("tensor size (bytes)")
    left.set_ylabel("makespan (ns)")
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize="small")
    for s in sizes:
        if (s, 1) not in data:
            continue
        xs = [k for k in ks if (s, k) in data]
        right.plot(xs, [data[(s, 1)] / data[(s, k)] for k in xs], marker="o", label=f"{int(s)} B")
    right.plot(ks, ks, linestyle=":", color="grey", label="ideal (k)")
    right.set_xlabel("paths per tensor, k (scheduler.max_paths)")
    right.set_ylabel("speed-up over the direct link alone")
    right.grid(True, alpha=0.3)
    right.legend(fontsize="small")
    fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)


if __name__ == "__main__":
    main()
