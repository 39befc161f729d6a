#!/usr/bin/env bash
# Packet-hop rate of the Ananta data plane beside the ns-3 yardstick, alternated in one session (bench/README.md,
# "Ananta data plane"). Usage:
#   bench/ananta_measure.sh RUNS NS3_CLOS LOOM [LOOM ...]
# RUNS rounds; each round runs every LOOM binary on configs/ananta/large-ci.json (--perf) and NS3_CLOS
# (--flows=500 --sim_ms=20), in turn. Prints each run, then per program the median (min-max) of the wall-clock
# packet_hops_per_s and of the user CPU seconds (/usr/bin/time, setup included), and the load average.
set -euo pipefail
runs=$1
ns3=$2
shift 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for ((r = 1; r <= runs; ++r)); do
    i=0
    for loom in "$@"; do
        i=$((i + 1))
        /usr/bin/time -f "user=%U" -o "$out/time" "$loom" run configs/ananta/large-ci.json --quiet --perf \
            --out "$out/stats" > "$out/log" 2>&1
        hps=$(grep -o 'packet_hops_per_s=[0-9]*' "$out/log" | cut -d= -f2)
        user=$(cut -d= -f2 < "$out/time")
        echo "loom$i $loom hops_per_s=$hps user_s=$user" | tee -a "$out/all"
    done
    /usr/bin/time -f "user=%U" -o "$out/time" "$ns3" --flows=500 --sim_ms=20 > "$out/log" 2>&1
    hps=$(grep -o 'packet_hops_per_s=[0-9.]*' "$out/log" | cut -d= -f2 | cut -d. -f1)
    user=$(cut -d= -f2 < "$out/time")
    echo "ns3 $ns3 hops_per_s=$hps user_s=$user" | tee -a "$out/all"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out/all" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, prog, h, u = line.split()
    key = (name, prog)
    rows.setdefault(key, []).append((float(h.split("=")[1]), float(u.split("=")[1])))
for (name, prog), v in rows.items():
    h = [x[0] for x in v]; u = [x[1] for x in v]
    print(f"{name} {prog}: hops/s median {statistics.median(h):,.0f} ({min(h):,.0f}-{max(h):,.0f}), "
          f"user s median {statistics.median(u):.2f} ({min(u):.2f}-{max(u):.2f}), runs {len(v)}")
PY
