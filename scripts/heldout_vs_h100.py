#!/usr/bin/env python3
"""The held-out kernels (validation/heldout) on the model against the H200 (docs/validation.md
"Held-out kernels"): flushed (Nsight Compute's sm__cycles_elapsed.max with caches flushed before
each launch; the model with gigathread.flush_caches_before_launch, core cycles) and warm (the mean
of back-to-back launches under CUDA events; the model times its own repeats with simulated events).

  scripts/heldout_vs_h100.py build/scgpu [--save-model F]   # runs the model (about 10 minutes)
  scripts/heldout_vs_h100.py --from-model docs/data/heldout/model_heldout.csv

The H200's HBM3e moves 1.4x the H100's HBM3 bytes a second, so in the flushed condition kernels
that stream their inputs from DRAM run faster on it than on the hopper preset's H100; the warm
condition (inputs in the L2) compares like with like.
"""
import argparse, csv, json, os, subprocess, sys, tempfile

from vs_h100_stats import summary

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
ap.add_argument("scgpu", nargs="?", default="")
ap.add_argument("--from-model", default="")
ap.add_argument("--save-model", default="")
ap.add_argument("--threads", default="2")
ap.add_argument("--repeats", default="2", help="model launches timed in the warm condition")
ap.add_argument("--set", action="append", default=[], help="passed to scgpu exec as --set")
ap.add_argument("--baseline", default="", help='JSON {"flushed_mape_pct": F, "warm_mape_pct": W}: exit 1 when '
                "either MAPE is more than --max-worsening points above it (the long test heldout_vs_h100)")
ap.add_argument("--max-worsening", type=float, default=2.0, help="MAPE points")
a = ap.parse_args()
if not a.scgpu and not a.from_model:
    ap.error("give the scgpu binary or --from-model CSV")
data = os.path.join(root, "docs", "data", "heldout")
program = os.path.join(root, "validation", "heldout", "bin", "heldout")

# Silicon: ncu CSV (after the program's own output) and the warm lines.
silicon_flushed, silicon_warm = {}, {}
lines = open(os.path.join(data, "heldout_ncu.csv")).read().splitlines()
for row in csv.reader(l for l in lines if l.startswith('"')):
    if len(row) > 14 and row[12] == "sm__cycles_elapsed.max":
        silicon_flushed[row[4]] = float(row[14].replace(",", ""))
for l in open(os.path.join(data, "heldout_warm.txt")):
    f = l.strip().split(",")
    if len(f) == 4 and f[0] == "warm":
        silicon_warm[f[1]] = float(f[3])


def run_model():
    flushed, warm = {}, {}
    sets = [x for s in a.set for x in ("--set", s)]
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "flushed.json")
        subprocess.run([a.scgpu, "exec", "--threads", a.threads, "--stats-json", stats,
                        "--set", "gigathread.flush_caches_before_launch=true", *sets, "--", program, "flushed"],
                       check=True, stdout=subprocess.DEVNULL)
        for l in json.load(open(stats))["launches"]:
            flushed[l["kernel"]] = float(l["core_cycles"])
        out = subprocess.run([a.scgpu, "exec", "--threads", a.threads, *sets, "--", program, "warm", a.repeats],
                             check=True, capture_output=True, text=True).stdout
        for l in out.splitlines():
            f = l.split(",")
            if len(f) == 4 and f[0] == "warm":
                warm[f[1]] = float(f[3])
    return flushed, warm


if a.from_model:
    model_flushed, model_warm = {}, {}
    for r in csv.DictReader(open(a.from_model)):
        (model_flushed if r["condition"] == "flushed" else model_warm)[r["kernel"]] = float(r["value"])
else:
    model_flushed, model_warm = run_model()
if a.save_model:
    with open(a.save_model, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["condition", "kernel", "unit", "value"])
        for k, v in model_flushed.items():
            w.writerow(["flushed", k, "cycles", f"{v:.0f}"])
        for k, v in model_warm.items():
            w.writerow(["warm", k, "ns", f"{v:.1f}"])

mapes = {}
for name, sil, mod, unit in (("flushed", silicon_flushed, model_flushed, "cycles"),
                             ("warm", silicon_warm, model_warm, "ns")):
    pairs = [(k, sil[k], mod[k]) for k in sil if k in mod]
    print(f"\n{name} ({unit})")
    print(f"{'kernel':20s} {'H200':>12s} {'model':>12s} {'ratio':>6s}")
    for k, s, m in pairs:
        print(f"{k:20s} {s:12.1f} {m:12.1f} {m / s:6.2f}")
    n, mape, geo, r, within = summary([(s, m) for _, s, m in pairs])
    print(f"kernels {n}  MAPE {mape:.1f}%  geo-mean {geo:.3f}  Pearson r(log) {r:.3f}  within ±25% {within}/{n}")
    mapes[name] = mape
if a.baseline:
    base = json.load(open(a.baseline))
    bad = False
    for name in ("flushed", "warm"):
        limit = base[f"{name}_mape_pct"] + a.max_worsening
        ok = mapes[name] <= limit
        bad |= not ok
        print(f"{'OK' if ok else 'WORSE'}: {name} MAPE {mapes[name]:.1f}% against the baseline "
              f"{base[f'{name}_mape_pct']:.1f}% (+{a.max_worsening} allowed)")
    sys.exit(1 if bad else 0)
