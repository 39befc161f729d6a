#!/bin/bash
# Alternates two loom binaries (OLD, NEW) on the fabric reference run and the 264-TSP schedule, RUNS times each,
# printing each run's --perf line (wall_s: the simulation) and /usr/bin/time's CPU and wall seconds, and the
# load average after each round. Run from the repository root:
#     bench/alternate_fabric_tsp.sh OLD/loom NEW/loom 7 > runs.txt
set -euo pipefail
OLD=$1
NEW=$2
RUNS=${3:-5}
for _ in $(seq 1 "$RUNS"); do
    for v in old new; do
        B=$OLD
        [ "$v" = new ] && B=$NEW
        /usr/bin/time -f "fabric $v cpu=%U wall=%e" "$B" run configs/dragonfly/reference-1056-ur.json \
            --set traffic.measurement.measure_cycles=2000 --perf --quiet 2>&1 >/dev/null | grep -E "^fabric|wall_s"
        /usr/bin/time -f "tsp $v cpu=%U wall=%e" "$B" schedule configs/tsp/compare-264.json --quiet --brief --perf \
            2>&1 >/dev/null | grep -E "^tsp|wall_s"
    done
    echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
done
