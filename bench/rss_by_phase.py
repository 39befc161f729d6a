#!/usr/bin/env python3
"""Peak resident memory of a loom command, phase by phase.

Runs COMMAND (a loom invocation; --progress is added so that its phase lines reach stderr even when it is not a
terminal), samples the process's VmRSS from /proc every INTERVAL seconds and reports, for each phase the command
announces ("phase: compile", "phase: verify", ...), when it started and the largest resident set seen during it.
The peak over the whole run is also the kernel's own figure (VmHWM), read just before the process exits.

    bench/rss_by_phase.py [--interval 0.25] -- build/src/cli/loom schedule configs/tsp/collectives/allreduce-10440.json --brief
"""
import argparse
import os
import re
import subprocess
import sys
import threading
import time


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--interval", type=float, default=0.25, help="sampling interval in seconds (default 0.25)")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="the loom command, after --")
    args = ap.parse_args()
    cmd = [c for c in args.command if c != "--"]
    if not cmd:
        ap.error("a command to run is required after --")
    if args.interval <= 0:
        ap.error("--interval: expected a positive number of seconds")
    cmd = cmd + ["--progress"]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    phases = [("start", 0.0)]
    lock = threading.Lock()

    def read_stderr():
        buf = b""
        while True:
            chunk = proc.stderr.read1(4096)
            if not chunk:
                break
            buf += chunk
            parts = re.split(rb"[\r\n]", buf)
            buf = parts.pop()
            for p in parts:
                m = re.match(rb"\s*phase: (.*)", p)
                if m:
                    with lock:
                        phases.append((m.group(1).decode(errors="replace").strip(), time.monotonic() - start))

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    samples = []
    hwm = None
    while proc.poll() is None:
        rss = status_kib(proc.pid, "VmRSS")
        h = status_kib(proc.pid, "VmHWM")
        if rss is not None:
            samples.append((time.monotonic() - start, rss))
        if h is not None:
            hwm = h
        time.sleep(args.interval)
    reader.join(timeout=5)
    end = time.monotonic() - start
    with lock:
        marks = list(phases)
    print(f"{'phase':<28}{'from s':>9}{'to s':>9}{'peak RSS MiB':>15}")
    for k, (name, t0) in enumerate(marks):
        t1 = marks[k + 1][1] if k + 1 < len(marks) else end
        peak = max((r for t, r in samples if t0 <= t < t1), default=None)
        shown = f"{peak / 1024:.0f}" if peak is not None else "-"
        print(f"{name:<28}{t0:>9.1f}{t1:>9.1f}{shown:>15}")
    if hwm is not None:
        print(f"peak (VmHWM, last read {args.interval:g} s or less before exit): {hwm / 1024:.0f} MiB")
    print(f"exit status {proc.returncode}, {end:.1f} s")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
