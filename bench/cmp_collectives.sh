#!/bin/bash
# Compares two loom binaries' outputs on every config in configs/tsp/collectives/ (allreduce-10440.json at 16 racks,
# 1,152 TSPs): stats.json, report.txt, report.csv, config.json and stdout of `loom schedule` (`loom sweep` for the
# *.sweep.json files, whose points' cache_key names the build and is skipped). Run from the repository root.
# usage: bench/cmp_collectives.sh OLD_LOOM NEW_LOOM OUTDIR   (exit 1 and a DIFF line per file that differs)
old=$1; new=$2; out=$3; rc=0
if [ -z "$old" ] || [ -z "$new" ] || [ -z "$out" ]; then
  echo "usage: bench/cmp_collectives.sh OLD_LOOM NEW_LOOM OUTDIR" >&2; exit 2
fi
rm -rf "$out"; mkdir -p "$out"
for c in configs/tsp/collectives/*.json; do
  b=$(basename "$c" .json)
  extra=""
  case "$b" in allreduce-10440) extra="--set topology.racks=16";; esac
  case "$b" in *.sweep) cmd=sweep;; *) cmd=schedule;; esac
  for w in old new; do
    bin=$old; [ $w = new ] && bin=$new
    # shellcheck disable=SC2086
    $bin $cmd "$c" --quiet $extra --out "$out/$w-$b" > "$out/$w-$b.stdout" 2>&1
  done
  for f in $(cd "$out/old-$b" && find . -type f | sort); do
    case "$f" in */cache_key) continue;; esac
    if ! cmp -s "$out/old-$b/$f" "$out/new-$b/$f"; then echo "DIFF $b $f"; rc=1; fi
  done
  # stdout names the output folder (old-/new-).
  if ! diff -q <(sed "s/old-//g" "$out/old-$b.stdout") <(sed "s/new-//g" "$out/new-$b.stdout") >/dev/null; then
    echo "DIFF stdout $b"; rc=1
  fi
done
echo "done rc=$rc"; exit $rc
