#!/usr/bin/env python3
"""Runs every suite workload on the hopper preset at --scale 8 and compares each kernel's core
cycles (launches of a kernel in a workload summed) with the H100's (docs/data/h100_suite_scale8.csv:
ncu sm__cycles_elapsed.max, caches flushed before each launch; docs/validation.md "Scale 8").
Prints the per-kernel table and the summary (MAPE, geo-mean, Pearson r of log cycles, within
±25%). With --baseline FILE (JSON {"mape_pct": M}) it exits 1 when the MAPE is more than
--max-worsening points above M: the regression guard of the long test suite_vs_h100.
  scripts/suite_vs_h100.py SCGPU_BINARY [--threads 2] [--baseline validation/suite_scale8_baseline.json]
"""
import argparse, csv, json, os, subprocess, sys, tempfile

from vs_h100_stats import summary

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
ap.add_argument("scgpu")
ap.add_argument("--threads", default="2")
ap.add_argument("--baseline", default="")
ap.add_argument("--max-worsening", type=float, default=2.0, help="MAPE points")
ap.add_argument("--only", default="", help="comma-separated workloads")
ap.add_argument("--set", action="append", default=[], help="passed to scgpu run as --set (to try a value)")
a = ap.parse_args()

ref = list(csv.DictReader(open(os.path.join(root, "docs", "data", "h100_suite_scale8.csv"))))
workloads = sorted({r["workload"] for r in ref})
if a.only:
    workloads = [w for w in workloads if w in a.only.split(",")]
model = {}
with tempfile.TemporaryDirectory() as tmp:
    for w in workloads:
        out = os.path.join(tmp, w + ".json")
        # An argument vector: no shell. The float-atomic reduction drains its L2 atomic unit for
        # over a million cycles with no instruction issued: lift the no-progress watchdog. Every
        # launch starts with empty caches, as under ncu (without it a workload's later kernels
        # found their inputs in the L2 that silicon had flushed: dot_f64 0.68 instead of 0.97).
        p = subprocess.run([os.path.abspath(a.scgpu), "run", w, "--config", "hopper", "--scale", "8", "--quiet",
                            "--threads", a.threads, "--stats-json", out,
                            "--set", "watchdog.no_progress_cycles=20000000",
                            "--set", "gigathread.flush_caches_before_launch=true"] + [x for s in a.set for x in ("--set", s)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            print(f"{w}: run failed ({p.returncode}): {p.stderr.strip()[:300]}")
            sys.exit(1)
        for l in json.load(open(out))["launches"]:
            model[(w, l["kernel"])] = model.get((w, l["kernel"]), 0) + l["core_cycles"]

rows = []
print(f"{'workload':16} {'kernel':26} {'H100':>9} {'model':>9} {'ratio':>6}")
for r in ref:
    key = (r["workload"], r["kernel"])
    if key[0] not in workloads:
        continue
    if key not in model:
        print(f"{key[0]:16} {key[1]:26} missing in the model's launches")
        sys.exit(1)
    h, m = float(r["h100_cycles"]), float(model[key])
    rows.append((h, m))
    print(f"{key[0]:16} {key[1]:26} {h:9.0f} {m:9.0f} {m / h:6.2f}")
n, mape, geo, r_log, within = summary(rows)
print(f"kernels {n}  MAPE {mape:.1f}%  geo-mean {geo:.3f}  Pearson r(log) {r_log:.3f}  within ±25% {within}/{n}")
if a.baseline:
    base = json.load(open(a.baseline))["mape_pct"]
    if mape > base + a.max_worsening:
        print(f"FAIL: MAPE {mape:.1f}% is more than {a.max_worsening} points above the baseline {base:.1f}%")
        sys.exit(1)
    print(f"OK: MAPE {mape:.1f}% against the baseline {base:.1f}% (+{a.max_worsening} allowed)")
