#!/usr/bin/env python3
"""Runs the microbenchmark launch files of validation/micro on the hopper preset and compares each
with its H100 time (validation/micro/h100_reference.csv). Prints one row per file and exits 1 when
a ratio (model / H100) leaves [--low, --high]. Usage:
  scripts/micro_vs_h100.py SCGPU_BINARY [--only 64MiB,l2] [--threads 2] [--low 0.75 --high 1.25]
"""
import argparse, csv, json, os, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
ap.add_argument("scgpu")
ap.add_argument("--only", default="", help="comma-separated substrings of the launch files to run")
ap.add_argument("--threads", default="2")
ap.add_argument("--low", type=float, default=0.75)
ap.add_argument("--high", type=float, default=1.25)
a = ap.parse_args()
micro = os.path.join(root, "validation", "micro")
rows = list(csv.DictReader(open(os.path.join(micro, "h100_reference.csv"))))
only = [s for s in a.only.split(",") if s]
bad = 0
print(f"{'launch file':26} {'H100 us':>9} {'model us':>9} {'ratio':>6}")
with tempfile.TemporaryDirectory() as tmp:
    for r in rows:
        f = r["launch_file"]
        if only and not any(s in f for s in only):
            continue
        out = os.path.join(tmp, f + ".json")
        # An argument vector: no shell.
        p = subprocess.run([a.scgpu, "run", os.path.join(micro, f), "--config", "hopper", "--threads", a.threads,
                            "--quiet", "--stats-json", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            print(f"{f:26} run failed ({p.returncode}): {p.stderr.strip()[:200]}")
            bad += 1
            continue
        us = json.load(open(out))["launches"][0]["simulated_ns"] / 1000
        ratio = us / float(r["h100_us"])
        ok = a.low <= ratio <= a.high
        bad += not ok
        print(f"{f:26} {float(r['h100_us']):9.1f} {us:9.1f} {ratio:6.2f}{'' if ok else '  OUT OF RANGE'}")
sys.exit(1 if bad else 0)
