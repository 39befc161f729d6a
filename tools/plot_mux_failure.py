#!/usr/bin/python3
"""Black hole of a silently failed Mux against the routers' detection time, from the mux-failure sweep.

    tools/plot_mux_failure.py POINTS.csv -o FIGURE[.pdf|.png] [--columns 1|2]

POINTS.csv is what `loom sweep configs/ananta/mux-failure.sweep.json` writes. Each point's detection time is
bgp.hold_time, or bgp.fast_interval x bgp.fast_multiplier (default 3) when bgp.fast_detection is true. Left
panel: the silent Mux's black-hole time (the report pointer ending in mux_events/1/black_hole_ps) against the
detection time, log-log, hold-timer points and fast-detection points marked apart. Right panel: the packets it
black-holed (muxes/mux2/black_holed_packets) and its connections broken (mux_events/1/connections/broken).
-o without an extension writes FIGURE.pdf and FIGURE.png. Runs whose status is not ok are left out.
"""

import argparse
import csv
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLUMN_WIDTH = {1: 3.5, 2: 7.16}
UNITS = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def seconds(text):
    m = re.fullmatch(r"\s*([0-9.]+)\s*(ps|ns|us|ms|s)\s*", text)
    if not m:
        raise ValueError(f"not a duration: {text!r}")
    return float(m.group(1)) * UNITS[m.group(2)]


def column(header, suffix):
    for name in header:
        if name.endswith(suffix):
            return name
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("points")
    ap.add_argument("-o", "--output", action="append", required=True)
    ap.add_argument("--columns", type=int, choices=(1, 2), default=2)
    args = ap.parse_args()

    with open(args.points, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("status", "ok") == "ok"]
    if not rows:
        sys.exit(f"{args.points}: no successful points")
    header = list(rows[0].keys())
    hole = column(header, "mux_events/1/black_hole_ps")
    lost = column(header, "muxes/mux2/black_holed_packets")
    broken = column(header, "mux_events/1/connections/broken")
    if hole is None:
        sys.exit(f"{args.points}: no column ending in mux_events/1/black_hole_ps")

    series = {"hold timer": [], "fast detection": []}
    for r in rows:
        fast = r.get("bgp.fast_detection", "false").strip().lower() == "true"
        mult = float(r.get("bgp.fast_multiplier", "3") or 3)
        detect = seconds(r["bgp.fast_interval"]) * mult if fast else seconds(r["bgp.hold_time"])
        series["fast detection" if fast else "hold timer"].append(
            (detect, float(r[hole]) * 1e-12, float(r[lost]) if lost else None, float(r[broken]) if broken else None))

    fig, (a, b) = plt.subplots(1, 2, figsize=(COLUMN_WIDTH[args.columns], COLUMN_WIDTH[args.columns] * 0.4))
    for (name, pts), marker in zip(series.items(), ("o", "s")):
        pts.sort()
        if not pts:
            continue
        a.plot([p[0] for p in pts], [max(p[1], 1e-6) for p in pts], marker=marker, label=name)
        if lost:
            b.plot([p[0] for p in pts], [p[2] for p in pts], marker=marker, label=f"packets lost ({name})")
        if broken:
            b.plot([p[0] for p in pts], [p[3] for p in pts], marker=marker, linestyle="--",
                   label=f"connections broken ({name})")
    for ax in (a, b):
        ax.set_xscale("log")
        ax.set_xlabel("detection time (s)")
        ax.grid(True, which="both", alpha=0.3)
    a.set_yscale("log")
    a.set_ylabel("black hole (s)")
    b.set_yscale("symlog", linthresh=1)
    b.set_ylim(bottom=0)
    b.set_ylabel("count")
    a.legend(fontsize="small")
    b.legend(fontsize="x-small")
    fig.tight_layout()
    for out in args.output:
        targets = [out] if os.path.splitext(out)[1] else [out + ".pdf", out + ".png"]
        for t in targets:
            fig.savefig(t, dpi=200)
            print(f"wrote {t}")


if __name__ == "__main__":
    main()
