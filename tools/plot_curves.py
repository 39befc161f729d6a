#!/usr/bin/python3
"""Latency and throughput curves of a fabric sweep, sized for a paper.

    tools/plot_curves.py POINTS.csv -o FIGURE[.pdf|.png] [--title TEXT] [--latency mean|p99] [--unit cycles|ns]
                         [--panels 1|2] [--columns 1|2] [--xlabel TEXT] [--ylabel TEXT] [--ylabel2 TEXT]

POINTS.csv is the points.csv that `loom sweep` writes: one column per axis, one per report pointer, then
`status`. The offered load is the `traffic.rate` axis; the series are the combinations of the other axes that
vary (e.g. `routing.function`). The latency column is the report pointer ending in
`packet_latency/<mean|p99>_cycles` (else any `latency/..._cycles` column) and the accepted load the one ending in
`accepted_flits_per_cycle`. A replicated sweep ("replications": N) adds `<pointer>:ci95` columns: they are drawn
as error bars (the 95% confidence interval of the mean over the replications).

Panels: latency vs offered load, and (with --panels 2, the default) accepted vs offered load. A saturated point
(no latency: the run never reached steady state) ends its curve and is marked with an x on the top edge; a
replicated point that saturated in some replications only (fewer values than the others) is drawn hollow. Both
marks have their own legend entry. --unit ns converts cycles with the `cycle_ps` column when the sweep reports
`/stats/fabric/cycle_ps`, else with --cycle-ps. --columns 1 or 2 sizes the figure for one or two columns of a
two-column paper (3.5 or 7.16 inches wide). -o without an extension writes FIGURE.pdf and FIGURE.png; -o may be
given more than once. Runs that failed (status other than ok) are left out.
"""

import argparse
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

# Widths of one and two columns of a two-column paper (IEEE/ACM templates), in inches.
COLUMN_WIDTH = {1: 3.5, 2: 7.16}


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def pick(columns, suffixes, what, required=True):
    for suffix in suffixes:
        for c in columns:
            if c.endswith(suffix):
                return c
    if required:
        sys.exit(f"plot_curves: no {what} column (expected one ending in {' or '.join(suffixes)}); have {columns}")
    return None


def outputs(paths):
    files = []
    for path in paths:
        if os.path.splitext(path)[1]:
            files.append(path)
        else:
            files += [path + ".pdf", path + ".png"]
    return files


def main():
    parser = argparse.ArgumentParser(description="Latency and accepted load vs offered load of a fabric sweep.")
    parser.add_argument("points", help="points.csv written by `loom sweep`")
    parser.add_argument("-o", "--output", required=True, action="append",
                        help="figure file (.pdf, .png, .svg); without an extension both FILE.pdf and FILE.png")
    parser.add_argument("--title", default=None, help="figure title (default: none)")
    parser.add_argument("--latency", choices=["mean", "p99"], default="mean", help="latency statistic to draw")
    parser.add_argument("--unit", choices=["cycles", "ns"], default="cycles", help="latency unit")
    parser.add_argument("--cycle-ps", type=float, default=None,
                        help="router cycle in ps for --unit ns when the sweep does not report /stats/fabric/cycle_ps")
    parser.add_argument("--panels", type=int, choices=[1, 2], default=2,
                        help="1: latency only, 2: latency and accepted load")
    parser.add_argument("--columns", type=int, choices=[1, 2], default=2,
                        help="figure width: one or two columns of a two-column paper")
    parser.add_argument("--xlabel", default="offered load (flits/cycle/terminal)")
    parser.add_argument("--ylabel", default=None, help="latency axis label (default: from --latency and --unit)")
    parser.add_argument("--ylabel2", default="accepted load (flits/cycle/terminal)", help="accepted-load axis label")
    args = parser.parse_args()

    with open(args.points, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"plot_curves: {args.points}: no points")
    columns = list(rows[0].keys())
    rate = pick(columns, ["traffic.rate"], "offered load (traffic.rate axis)")
    stat = args.latency
    latency = pick(columns, [f"packet_latency/{stat}_cycles", f"latency/{stat}_cycles"], f"{stat} latency")
    accepted = pick(columns, ["accepted_flits_per_cycle"], "accepted load", required=args.panels == 2)
    cycle_col = pick(columns, ["cycle_ps"], "cycle", required=False)
    if args.unit == "ns" and cycle_col is None and args.cycle_ps is None:
        sys.exit("plot_curves: --unit ns needs the cycle time: report /stats/fabric/cycle_ps or give --cycle-ps")
    status = "status" if "status" in columns else None
    # Axes come before the first report pointer; the series are those (other than the rate) that vary.
    axes = columns[: next((i for i, c in enumerate(columns) if c.startswith("/")), len(columns))]
    series_keys = [c for c in axes if c != rate and len({r[c] for r in rows}) > 1]
    lat_ci = latency + ":ci95" if latency + ":ci95" in columns else None
    lat_n = latency + ":n" if latency + ":n" in columns else None
    acc_ci = accepted + ":ci95" if accepted and accepted + ":ci95" in columns else None
    full_n = max([number(r[lat_n]) or 0 for r in rows]) if lat_n else None

    def scale(row):
        if args.unit == "cycles":
            return 1.0
        ps = number(row[cycle_col]) if cycle_col else None
        return (ps if ps is not None else args.cycle_ps) / 1000.0

    series = {}
    for row in rows:
        if status and row[status] not in ("ok", "cached"):
            continue
        offered = number(row[rate])
        if offered is None:
            continue
        label = ", ".join(row[k] for k in series_keys) or "run"
        k = scale(row)
        lat = number(row[latency])
        point = {
            "offered": offered,
            "latency": lat * k if lat is not None else None,
            "latency_ci": (number(row[lat_ci]) or 0.0) * k if lat_ci else 0.0,
            "partial": lat_n is not None and lat is not None and (number(row[lat_n]) or 0) < full_n,
            "accepted": number(row[accepted]) if accepted else None,
            "accepted_ci": (number(row[acc_ci]) or 0.0) if acc_ci else 0.0,
        }
        series.setdefault(label, []).append(point)

    small = args.columns == 1
    plt.rcParams.update({"font.size": 7 if small else 9})
    width = COLUMN_WIDTH[args.columns]
    height = width * (0.75 if args.panels == 1 or args.columns == 1 else 0.4)
    if args.panels == 2 and args.columns == 1:
        fig, (ax_lat, ax_acc) = plt.subplots(2, 1, figsize=(width, width * 1.3))
    elif args.panels == 2:
        fig, (ax_lat, ax_acc) = plt.subplots(1, 2, figsize=(width, height))
    else:
        fig, ax_lat = plt.subplots(1, 1, figsize=(width, height))
        ax_acc = None
    top = max([0.0] + [p["latency"] + p["latency_ci"] for pts in series.values() for p in pts
                       if p["latency"] is not None])
    top = top * 1.1 if top > 0 else 1.0
    markers = "os^vDP*X"
    any_saturated = any_partial = False
    for i, (label, points) in enumerate(sorted(series.items())):
        points.sort(key=lambda p: p["offered"])
        marker = markers[i % len(markers)]
        # Latency: the curve up to the first point without a number (saturated), marked at the top edge.
        curve = []
        saturated_at = None
        for p in points:
            if p["latency"] is None:
                saturated_at = p["offered"]
                break
            curve.append(p)
        xs = [p["offered"] for p in curve]
        ys = [p["latency"] for p in curve]
        errs = [p["latency_ci"] for p in curve] if lat_ci else None
        line = ax_lat.errorbar(xs, ys, yerr=errs, marker=marker, markersize=3 if small else 5, capsize=2,
                               linewidth=1, label=label)[0]
        color = line.get_color()
        partial = [p for p in curve if p["partial"]]
        if partial:
            any_partial = True
            ax_lat.plot([p["offered"] for p in partial], [p["latency"] for p in partial], linestyle="none",
                        marker="o", markersize=9 if not small else 6, markerfacecolor="none", color=color)
        if saturated_at is not None:
            any_saturated = True
            ax_lat.plot([saturated_at], [top], marker="x", color=color, markersize=9 if not small else 6,
                        clip_on=False, linestyle="none")
        if ax_acc is not None:
            acc = [p for p in points if p["accepted"] is not None]
            ax_acc.errorbar([p["offered"] for p in acc], [p["accepted"] for p in acc],
                            yerr=[p["accepted_ci"] for p in acc] if acc_ci else None, marker=marker,
                            markersize=3 if small else 5, capsize=2, linewidth=1, color=color, label=label)

    unit = "ns" if args.unit == "ns" else "cycles"
    what = "mean" if stat == "mean" else "99th-percentile"
    ax_lat.set_xlabel(args.xlabel)
    ax_lat.set_ylabel(args.ylabel or f"{what} packet latency ({unit})")
    ax_lat.set_ylim(0, top)
    ax_lat.grid(True, alpha=0.3)
    handles, labels = ax_lat.get_legend_handles_labels()
    if any_saturated:
        handles.append(Line2D([], [], color="grey", marker="x", linestyle="none"))
        labels.append("saturated")
    if any_partial:
        handles.append(Line2D([], [], color="grey", marker="o", markerfacecolor="none", linestyle="none"))
        labels.append("saturated in some seeds")
    ax_lat.legend(handles, labels, fontsize="small")
    if lat_ci:
        ax_lat.set_title("error bars: 95% CI over seeds", fontsize="small")
    if ax_acc is not None:
        limit = max([p["offered"] for pts in series.values() for p in pts] + [0.1])
        ax_acc.plot([0, limit], [0, limit], linestyle=":", color="grey", label="accepted = offered")
        ax_acc.set_xlabel(args.xlabel)
        ax_acc.set_ylabel(args.ylabel2)
        ax_acc.grid(True, alpha=0.3)
        ax_acc.legend(fontsize="small")
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    files = outputs(args.output)
    for path in files:
        fig.savefig(path, dpi=300 if path.endswith(".png") else None)
    print(f"plot_curves: wrote {', '.join(files)} ({len(series)} series, "
          f"{sum(len(p) for p in series.values())} points)")


if __name__ == "__main__":
    main()
