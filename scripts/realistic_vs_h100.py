#!/usr/bin/env python3
"""The suite at realistic sizes against the H100, in both timing conditions (docs/validation.md
"Realistic sizes"):

- flushed: Nsight Compute's sm__cycles_elapsed.max with caches flushed before each launch
  (docs/data/h100_suite_realistic.csv, one row per launch, each workload at its own scale);
- warm: the mean time of 10 back-to-back launches under CUDA events, right after the launch itself
  (docs/data/h100_suite_realistic_warm.csv), as a user times a kernel.

The model runs each workload at the same scale on `hopper`, once per condition: flushed with
gigathread.flush_caches_before_launch (every launch starts with empty caches; compared in core
cycles), warm with --warm-repeats 1 (every launch is followed by one more of it on the caches,
TLBs and DRAM rows it left; the repeats are compared in ns). The model's per-launch results go to a
CSV (--save-model); --from-model FILE (repeatable) reads them instead of running the model, so the
tables and the scatter plot are regenerated from the committed raw CSVs alone:

  scripts/realistic_vs_h100.py --scgpu build/scgpu --save-model docs/data/model_suite_realistic.csv
  /usr/bin/python3 scripts/realistic_vs_h100.py --from-model docs/data/model_suite_realistic.csv \\
      --plot docs/img/h100_realistic_scatter.png --markdown

Per kernel, the launches of a kernel in a workload are summed. --plot needs matplotlib (Debian's
python3-matplotlib, for /usr/bin/python3).
"""
import argparse, csv, json, os, subprocess, sys, tempfile
from collections import OrderedDict

from vs_h100_stats import summary

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
ap.add_argument("--scgpu", default="", help="the simulator to run (else --from-model)")
ap.add_argument("--from-model", action="append", default=[], help="model results CSV written by --save-model")
ap.add_argument("--conditions", default="flushed,warm", help="the model runs to make (with --scgpu)")
ap.add_argument("--save-model", default="")
ap.add_argument("--threads", default="2")
ap.add_argument("--only", default="", help="comma-separated workloads")
ap.add_argument("--set", action="append", default=[], help="passed to scgpu run as --set")
ap.add_argument("--flushed", default=os.path.join(root, "docs", "data", "h100_suite_realistic.csv"))
ap.add_argument("--warm", default=os.path.join(root, "docs", "data", "h100_suite_realistic_warm.csv"))
ap.add_argument("--plot", default="", help="PNG of model against H100, both conditions")
ap.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
ap.add_argument("--baseline", default="", help='JSON {"flushed_mape_pct": F, "warm_mape_pct": W}: exit 1 when '
                "either MAPE is more than --max-worsening points above it (the long test realistic_vs_h100)")
ap.add_argument("--max-worsening", type=float, default=2.0, help="MAPE points")
a = ap.parse_args()
if not a.scgpu and not a.from_model:
    ap.error("give --scgpu BINARY or --from-model CSV")

flushed_rows = list(csv.DictReader(open(a.flushed)))
warm_rows = list(csv.DictReader(open(a.warm)))
scale = OrderedDict()
for r in flushed_rows:
    scale[r["workload"]] = r["scale"]
workloads = [w for w in scale if not a.only or w in a.only.split(",")]

# H100 per kernel: flushed cycles summed over launches; warm ns summed over launches (each a mean).
h_flushed, h_warm = OrderedDict(), OrderedDict()
for r in flushed_rows:
    k = (r["workload"], r["kernel"])
    h_flushed[k] = h_flushed.get(k, 0.0) + float(r["sm_cycles"])
for r in warm_rows:
    k = (r["workload"], r["kernel"])
    h_warm[k] = h_warm.get(k, 0.0) + float(r["warm_ns"])

# Model per launch: condition, workload, scale, kernel, core_cycles, simulated_ns.
model_rows = []
for f in a.from_model:
    model_rows += list(csv.DictReader(open(f)))
if a.scgpu:
    conditions = {"flushed": ["--set", "gigathread.flush_caches_before_launch=true"], "warm": ["--warm-repeats", "1"]}
    with tempfile.TemporaryDirectory() as tmp:
        for cond in a.conditions.split(","):
            for w in workloads:
                out = os.path.join(tmp, w + ".json")
                # An argument vector, no shell. The checks of accumulating kernels fail after their
                # repeat (the GPU's do too): only the times count here, so the exit status of a
                # failed check (1) is accepted; a fault or input error is not.
                cmd = [os.path.abspath(a.scgpu), "run", w, "--config", "hopper", "--scale", scale[w], "--quiet",
                       "--threads", a.threads, "--stats-json", out, "--set", "watchdog.no_progress_cycles=50000000"]
                cmd += conditions[cond] + [x for s in a.set for x in ("--set", s)]
                p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                if p.returncode not in (0, 1) or not os.path.exists(out):
                    print(f"{w}: run failed ({p.returncode}): {p.stderr.strip()[:300]}")
                    sys.exit(1)
                for l in json.load(open(out))["launches"]:
                    if cond == "warm" and not l.get("warm_repeat", False):
                        continue
                    # Warm: CUDA events around back-to-back launches, completion to completion.
                    ns = l.get("event_ns", l["simulated_ns"]) if cond == "warm" else l["simulated_ns"]
                    model_rows.append({"condition": cond, "workload": w, "scale": scale[w], "kernel": l["kernel"],
                                       "core_cycles": l["core_cycles"], "simulated_ns": ns})
                print(f"ran {w} (scale {scale[w]}, {cond})", file=sys.stderr)
    if a.save_model:
        with open(a.save_model, "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=["condition", "workload", "scale", "kernel", "core_cycles", "simulated_ns"])
            wr.writeheader()
            wr.writerows(model_rows)

m_flushed, m_warm = {}, {}
for r in model_rows:
    k = (r["workload"], r["kernel"])
    if r["condition"] == "warm":
        m_warm[k] = m_warm.get(k, 0.0) + float(r["simulated_ns"])
    else:
        m_flushed[k] = m_flushed.get(k, 0.0) + float(r["core_cycles"])


results, mapes = {}, {}
for name, h, m, unit in (("flushed", h_flushed, m_flushed, "cycles"), ("warm", h_warm, m_warm, "ns")):
    pairs = []
    for k, hv in h.items():
        if k[0] not in workloads:
            continue
        if k not in m:
            print(f"{k[0]} {k[1]}: no {name} launch in the model's results")
            continue
        pairs.append((k, hv, m[k]))
    results[name] = pairs
    if not pairs:  # a condition the model did not run (--conditions)
        continue
    n, mape, geo, r, within = summary([(h, m) for _, h, m in pairs])
    mapes[name] = mape
    if a.markdown:
        print(f"\n{name} ({unit}): {n} kernels, MAPE {mape:.1f}%, geo-mean model/H100 {geo:.3f}, "
              f"Pearson r (log) {r:.3f}, within ±25% {within}/{n}\n")
        print(f"| workload | scale | kernel | H100 {unit} | model {unit} | model / H100 |")
        print("|---|--:|---|--:|--:|--:|")
        for k, hv, mv in pairs:
            print(f"| {k[0]} | {scale[k[0]]} | {k[1]} | {hv:.0f} | {mv:.0f} | {mv / hv:.2f} |")
    else:
        print(f"\n{name} ({unit})")
        print(f"{'workload':16} {'kernel':26} {'H100':>11} {'model':>11} {'ratio':>6}")
        for k, hv, mv in pairs:
            print(f"{k[0]:16} {k[1]:26} {hv:11.0f} {mv:11.0f} {mv / hv:6.2f}")
        print(f"{name}: kernels {n}  MAPE {mape:.1f}%  geo-mean {geo:.3f}  Pearson r(log) {r:.3f}  "
              f"within ±25% {within}/{n}")

if a.plot:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.6))
    for ax, (name, unit) in zip(axes, (("flushed", "core cycles"), ("warm", "ns"))):
        pairs = results[name]
        hs = [h for _, h, _ in pairs]
        ms = [m for _, _, m in pairs]
        lo, hi = min(hs + ms) / 1.5, max(hs + ms) * 1.5
        ax.fill_between([lo, hi], [lo * 0.75, hi * 0.75], [lo * 1.25, hi * 1.25], color="0.9", label="±25%")
        ax.plot([lo, hi], [lo, hi], color="0.4", lw=1, label="model = H100")
        ax.scatter(hs, ms, s=22, color="tab:blue", zorder=3)
        for k, h, m in pairs:
            if not 0.75 <= m / h <= 1.25:
                ax.annotate(k[1], (h, m), fontsize=7, xytext=(3, 3), textcoords="offset points")
        n, mape, geo, r, within = summary([(h, m) for _, h, m in pairs])
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_xlabel(f"H100 ({unit})")
        ax.set_ylabel(f"scgpu hopper preset ({unit})")
        title = "caches flushed (ncu)" if name == "flushed" else "warm, back to back (CUDA events)"
        ax.set_title(f"{title}\nMAPE {mape:.1f}%, r(log) {r:.3f}, {within}/{n} within ±25%", fontsize=10)
        ax.legend(loc="upper left", fontsize=8)
        ax.grid(True, which="both", lw=0.3)
    fig.suptitle("Suite kernels at realistic sizes: scgpu against the H100", fontsize=11)
    fig.tight_layout()
    fig.savefig(a.plot, dpi=120)
    print(f"wrote {a.plot}")

if a.baseline:
    base = json.load(open(a.baseline))
    failed = False
    for name in a.conditions.split(","):
        if name not in mapes:  # asked for, but nothing to compare: a failure, not a pass
            print(f"FAIL: no {name} results to compare with the baseline")
            failed = True
            continue
        b = base[name + "_mape_pct"]
        ok = mapes[name] <= b + a.max_worsening
        failed |= not ok
        print(f"{'OK' if ok else 'FAIL'}: {name} MAPE {mapes[name]:.1f}% against the baseline {b:.1f}% "
              f"(+{a.max_worsening} allowed)")
    sys.exit(1 if failed else 0)
