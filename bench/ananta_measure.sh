#!/usr/bin/env bash
# Packet-hop rate of the Ananta data plane beside the ns-3 yardstick, alternated in one session (bench/README.md,
# "Ananta data plane"). Usage:
#   bench/ananta_measure.sh RUNS NS3_CLOS LOOM [LOOM ...]
# RUNS rounds; each round runs every LOOM binary on the config (--perf) and NS3_CLOS (--flows=500 --sim_ms=20),
# in turn. The config is configs/ananta/large-ci.json unless ANANTA_CONFIG names another; ANANTA_ARGS adds
# arguments to every Loom run, e.g.
#   ANANTA_CONFIG=configs/ananta/large-paper.json ANANTA_ARGS="--set end_time=70s" bench/ananta_measure.sh 5 ...
# Prints each run (with the connections open at the end), then per program the median (min-max) of the wall-clock
# packet_hops_per_s and of the user CPU seconds (/usr/bin/time, setup included), per Loom binary the median
# (min-max) of its per-round ratio to ns-3's rate, and the load average.
set -euo pipefail
runs=$1
ns3=$2
shift 2
config="${ANANTA_CONFIG:-configs/ananta/large-ci.json}"
read -r -a extra <<< "${ANANTA_ARGS:-}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "config: $config ${extra[*]}"
for ((r = 1; r <= runs; ++r)); do
    i=0
    for loom in "$@"; do
        i=$((i + 1))
        /usr/bin/time -f "user=%U" -o "$out/time" "$loom" run "$config" --quiet --perf "${extra[@]}" \
            --out "$out/stats" > "$out/log" 2>&1
        hps=$(grep -o 'packet_hops_per_s=[0-9]*' "$out/log" | cut -d= -f2)
        open=$(grep -o '[0-9]* open)' "$out/log" | head -n 1 | cut -d' ' -f1)
        user=$(cut -d= -f2 < "$out/time")
        echo "loom$i $loom hops_per_s=$hps user_s=$user round=$r open=${open:-?}" | tee -a "$out/all"
    done
    /usr/bin/time -f "user=%U" -o "$out/time" "$ns3" --flows=500 --sim_ms=20 > "$out/log" 2>&1
    hps=$(grep -o 'packet_hops_per_s=[0-9.]*' "$out/log" | cut -d= -f2 | cut -d. -f1)
    user=$(cut -d= -f2 < "$out/time")
    echo "ns3 $ns3 hops_per_s=$hps user_s=$user round=$r open=-" | tee -a "$out/all"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out/all" <<'PY'
import statistics, sys
rows, per_round = {}, {}
for line in open(sys.argv[1]):
    name, prog, h, u, r, _ = line.split()
    hops, user, rnd = float(h.split("=")[1]), float(u.split("=")[1]), int(r.split("=")[1])
    rows.setdefault((name, prog), []).append((hops, user))
    per_round.setdefault(rnd, {})[name] = hops
for (name, prog), v in rows.items():
    h = [x[0] for x in v]; u = [x[1] for x in v]
    print(f"{name} {prog}: hops/s median {statistics.median(h):,.0f} ({min(h):,.0f}-{max(h):,.0f}), "
          f"user s median {statistics.median(u):.2f} ({min(u):.2f}-{max(u):.2f}), runs {len(v)}")
for name in sorted({n for (n, _) in rows if n != "ns3"}):
    ratios = [rnd[name] / rnd["ns3"] for rnd in per_round.values() if rnd.get("ns3")]
    print(f"{name} / ns3 per round: median {statistics.median(ratios):.1f}x "
          f"({min(ratios):.1f}x-{max(ratios):.1f}x)")
PY
