#!/usr/bin/python3
"""Ananta's hash table vs Maglev's over table sizes (the hashing study).

    tools/plot_hashing.py POINTS.csv -o FIGURE.png [--title TEXT]

POINTS.csv is the points.csv that `loom sweep configs/ananta/hashing.sweep.json` writes: one column for the
axis (`mux.maglev_table_size`), one per report pointer, then `status`. Left panel: load balance, the busiest
DIP's share of connections over its fair share (1 is perfect), against the Maglev table size, with Ananta's
table as a horizontal line. Right panel: the share of connections that change DIP when the last DIP is removed
and when one is added, Maglev against the table size, Ananta as horizontal lines, and the share no scheme can
keep (the removed DIP's own connections). Runs whose status is not ok are left out.
"""

import argparse
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def column(columns, suffix):
    for c in columns:
        if c.endswith(suffix):
            return c
    sys.exit(f"plot_hashing: no column ending in {suffix}; have {columns}")


def number(text):
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("points")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--title", default="Ananta's hash table vs Maglev's (one VIP, one DIP removed or added)")
    args = ap.parse_args()
    with open(args.points, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("status", "ok") == "ok"]
    if not rows:
        sys.exit("plot_hashing: no successful points")
    cols = list(rows[0].keys())
    size_col = column(cols, "maglev_table_size")
    want = {
        "ananta_balance": "hash_study/ananta/max_over_mean",
        "ananta_removed": "hash_study/ananta/removed/disrupted_share",
        "ananta_added": "hash_study/ananta/added/disrupted_share",
        "maglev_balance": "hash_study/pool/max_over_mean",
        "maglev_removed": "hash_study/pool/removed/disrupted_share",
        "maglev_added": "hash_study/pool/added/disrupted_share",
        "forced": "hash_study/pool/removed/forced_share",
    }
    keys = {k: column(cols, s) for k, s in want.items()}
    points = []
    for r in rows:
        size = number(r[size_col])
        vals = {k: number(r[c]) for k, c in keys.items()}
        if size is None or any(v is None for v in vals.values()):
            continue
        points.append((size, vals))
    if not points:
        sys.exit("plot_hashing: no point has every column")
    points.sort(key=lambda p: p[0])
    xs = [p[0] for p in points]

    def series(k):
        return [p[1][k] for p in points]

    def flat(k):  # Ananta's figures do not depend on the Maglev table size: one line at their mean
        v = series(k)
        return sum(v) / len(v)

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    left.plot(xs, series("maglev_balance"), marker="o", label="Maglev")
    left.axhline(flat("ananta_balance"), linestyle="--", color="C1", label="Ananta (weight-expanded list)")
    left.axhline(1.0, linestyle=":", color="grey", label="perfect balance")
    left.set_xscale("log")
    left.set_xlabel("Maglev table size (entries, prime)")
    left.set_ylabel("busiest DIP's connections / fair share")
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize="small")

    right.plot(xs, series("maglev_removed"), marker="o", label="Maglev, one DIP removed")
    right.plot(xs, series("maglev_added"), marker="s", label="Maglev, one DIP added")
    right.axhline(flat("ananta_removed"), linestyle="--", color="C2", label="Ananta, one DIP removed")
    right.axhline(flat("ananta_added"), linestyle="-.", color="C3", label="Ananta, one DIP added")
    right.plot(xs, series("forced"), linestyle=":", color="grey", label="removed DIP's own (unavoidable)")
    right.set_xscale("log")
    right.set_ylim(0, 1.02)
    right.set_xlabel("Maglev table size (entries, prime)")
    right.set_ylabel("share of connections that change DIP")
    right.grid(True, which="both", alpha=0.3)
    right.legend(fontsize="small")
    fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"plot_hashing: wrote {args.output} ({len(points)} table sizes)")


if __name__ == "__main__":
    main()
