#!/usr/bin/python3
"""Latency and throughput curves of a fabric sweep.

    tools/plot_curves.py POINTS.csv -o FIGURE.png [--title TEXT]

POINTS.csv is the points.csv that `loom sweep` writes: one column per axis, one per report pointer, then
`status`. The offered load is the `traffic.rate` axis; the series are the combinations of the other axes
(e.g. `routing.function`); the latency column is the first report pointer ending in
`packet_latency/mean_cycles` (else any `latency` column) and the accepted load the one ending in
`accepted_flits_per_cycle`. The figure has two panels: latency vs offered load (points without a latency --
saturated runs, which report no latency -- end the curve and are marked on the top edge) and accepted vs offered
load. Runs that failed (status other than ok) are left out.
"""

import argparse
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def pick(columns, suffixes, what):
    for suffix in suffixes:
        for c in columns:
            if c.endswith(suffix):
                return c
    sys.exit(f"plot_curves: no {what} column (expected one ending in {' or '.join(suffixes)}); have {columns}")


def main():
    parser = argparse.ArgumentParser(description="Latency and accepted load vs offered load of a fabric sweep.")
    parser.add_argument("points", help="points.csv written by `loom sweep`")
    parser.add_argument("-o", "--output", required=True, help="figure file (.png, .pdf, .svg)")
    parser.add_argument("--title", default=None, help="figure title (default: the CSV's path)")
    args = parser.parse_args()

    with open(args.points, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"plot_curves: {args.points}: no points")
    columns = list(rows[0].keys())
    rate = pick(columns, ["traffic.rate"], "offered load (traffic.rate axis)")
    latency = pick(columns, ["packet_latency/mean_cycles", "latency/mean_cycles", "latency"], "latency")
    accepted = pick(columns, ["accepted_flits_per_cycle"], "accepted load")
    status = "status" if "status" in columns else None
    # Series: every axis column other than the rate (axes come before the first report pointer).
    axes = [c for c in columns[: next((i for i, c in enumerate(columns) if c.startswith("/")), len(columns))]]
    series_keys = [c for c in axes if c != rate]

    series = {}
    for row in rows:
        if status and row[status] not in ("ok", "cached"):
            continue
        offered = number(row[rate])
        if offered is None:
            continue
        label = ", ".join(f"{row[k]}" for k in series_keys if len({r[k] for r in rows}) > 1) or "run"
        series.setdefault(label, []).append((offered, number(row[latency]), number(row[accepted])))

    fig, (ax_lat, ax_acc) = plt.subplots(1, 2, figsize=(12, 4.8))
    top = 0.0
    for points in series.values():
        top = max([top] + [p[1] for p in points if p[1] is not None])
    top = top * 1.1 if top > 0 else 1.0
    markers = "os^vDP*X"
    for i, (label, points) in enumerate(sorted(series.items())):
        points.sort()
        marker = markers[i % len(markers)]
        # Latency: the curve up to the first point without a number (saturated), marked at the top edge.
        xs, ys = [], []
        saturated_at = None
        for offered, lat, _ in points:
            if lat is None:
                saturated_at = offered
                break
            xs.append(offered)
            ys.append(lat)
        line = ax_lat.plot(xs, ys, marker=marker, label=label)[0]
        if saturated_at is not None:
            ax_lat.plot([saturated_at], [top], marker="x", color=line.get_color(), markersize=9, clip_on=False)
        acc = [(o, a) for o, _, a in points if a is not None]
        ax_acc.plot([o for o, _ in acc], [a for _, a in acc], marker=marker, color=line.get_color(), label=label)

    ax_lat.set_xlabel("offered load (flits/cycle/terminal)")
    ax_lat.set_ylabel("mean packet latency (cycles)")
    ax_lat.set_ylim(0, top)
    ax_lat.set_title("latency vs offered load (x: saturated)")
    ax_lat.grid(True, alpha=0.3)
    ax_lat.legend()
    limit = max([p[0] for pts in series.values() for p in pts] + [0.1])
    ax_acc.plot([0, limit], [0, limit], linestyle=":", color="grey", label="accepted = offered")
    ax_acc.set_xlabel("offered load (flits/cycle/terminal)")
    ax_acc.set_ylabel("accepted load (flits/cycle/terminal)")
    ax_acc.set_title("accepted vs offered load")
    ax_acc.grid(True, alpha=0.3)
    ax_acc.legend()
    fig.suptitle(args.title if args.title is not None else args.points)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"plot_curves: wrote {args.output} ({len(series)} series, {sum(len(p) for p in series.values())} points)")


if __name__ == "__main__":
    main()
