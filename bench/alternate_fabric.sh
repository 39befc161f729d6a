#!/bin/bash
# Alternates two loom binaries (OLD, NEW) on the issue 16 fabric runs, RUNS rounds: the 1,056-terminal reference
# (full run) and the first 700 cycles of the 16,512-terminal network, printing per run the --perf line's flit-hop
# rate (wall clock of the simulation), /usr/bin/time's user CPU seconds and peak RSS (KiB), and the load average
# after each round; then the medians (min-max) per binary and run. From the repository root:
#     bench/alternate_fabric.sh OLD/loom NEW/loom 5 > runs.txt
set -euo pipefail
OLD=$1
NEW=$2
RUNS=${3:-5}
out=$(mktemp)
for _ in $(seq 1 "$RUNS"); do
    for v in old new; do
        B=$OLD
        [ "$v" = new ] && B=$NEW
        for run in ref large; do
            args=(configs/dragonfly/reference-1056-ur.json)
            [ "$run" = large ] && args=(configs/dragonfly/large-16512-ur.json --set end_time=700ns)
            line=$(/usr/bin/time -f "time cpu=%U rss=%M" "$B" run "${args[@]}" --perf --quiet 2>&1 >/dev/null |
                   grep -E "^time|flit_hops_per_s" | tr '\n' ' ')
            hops=$(echo "$line" | grep -o 'flit_hops_per_s=[0-9.]*' | cut -d= -f2)
            flits=$(echo "$line" | grep -o ' flit_hops=[0-9]*' | cut -d= -f2)
            cpu=$(echo "$line" | grep -o 'cpu=[0-9.]*' | cut -d= -f2)
            rss=$(echo "$line" | grep -o 'rss=[0-9]*' | cut -d= -f2)
            echo "$run $v flit_hops=$flits flit_hops_per_wall_s=$hops cpu_s=$cpu rss_kib=$rss" | tee -a "$out"
        done
    done
    echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
done
python3 - "$out" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    run, v, *kv = line.split()
    d = dict(x.split("=") for x in kv)
    r = rows.setdefault((run, v), {"rate": [], "cpu": [], "rss": [], "per_cpu": []})
    r["rate"].append(float(d["flit_hops_per_wall_s"]))
    r["cpu"].append(float(d["cpu_s"]))
    r["rss"].append(int(d["rss_kib"]) / 1024)
    r["per_cpu"].append(int(d["flit_hops"]) / float(d["cpu_s"]))
fmt = lambda xs, f: f"{f(statistics.median(xs))} ({f(min(xs))}-{f(max(xs))})"
for (run, v), r in sorted(rows.items()):
    print(f"{run} {v}: flit-hops/wall s {fmt(r['rate'], lambda x: f'{x/1e6:.2f}M')}, user CPU "
          f"{fmt(r['cpu'], lambda x: f'{x:.2f} s')}, flit-hops/CPU s {fmt(r['per_cpu'], lambda x: f'{x/1e6:.2f}M')}, "
          f"peak RSS {fmt(r['rss'], lambda x: f'{x:.1f} MiB')}")
PY
rm -f "$out"
