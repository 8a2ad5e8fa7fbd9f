#!/usr/bin/env python3
"""Runs the microbenchmark launch files of validation/micro on the hopper preset and compares each
with its H100 number. Two tables:
  memory-system streams: validation/micro/h100_reference.csv (launch file, H100 time in us; the
    model's simulated_ns of the launch);
  thread-block clusters: validation/micro/cluster_micro_cases.csv with docs/data/h100_cluster_micro.csv
    (the cycles the kernels timed themselves);
  SM mechanisms: validation/micro/sm_micro_cases.csv with docs/data/h100_sm_micro.csv, by the
    case's metric: block_cycles, the cycles each kernel timed itself with clock64 (mean over
    blocks) against the same from the model's `cycles` output buffer; kernel_ns, the H100's
    CUDA-event time of one launch against the model's simulated_ns; launch_ns, the H100's mean
    per back-to-back launch against the model's mean event_ns of the timed launches (completion to
    completion, the host submitting every host.launch_call_ns); none:
    not compared (docs/validation.md says why).
Prints one row per case and exits 1 when a ratio (model / H100) leaves [--low, --high]. Usage:
  scripts/micro_vs_h100.py SCGPU_BINARY [--only 64MiB,l2,smem_] [--threads 2] [--low 0.75 --high 1.25]
"""
import argparse, array, csv, json, os, re, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
micro = os.path.join(root, "validation", "micro")
ap = argparse.ArgumentParser()
ap.add_argument("scgpu")
ap.add_argument("--only", default="", help="comma-separated substrings of the case names to run")
ap.add_argument("--exact", action="store_true", help="--only lists whole case names, not substrings")
ap.add_argument("--threads", default="2")
ap.add_argument("--low", type=float, default=0.75)
ap.add_argument("--high", type=float, default=1.25)
ap.add_argument("--set", action="append", default=[], help="passed to scgpu run as --set")
a = ap.parse_args()
only = [s for s in a.only.split(",") if s]


def selected(name):
    return not only or any((s == name) if a.exact else (s in name) for s in only)


def run(launch_file, tmp, stats):
    """Runs a launch file; returns the stats JSON, or None with the error printed."""
    args = [os.path.abspath(a.scgpu), "run", launch_file, "--config", "hopper", "--threads", a.threads, "--quiet",
            "--stats-json", stats]
    for s in a.set:
        args += ["--set", s]
    # An argument vector: no shell.
    p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=tmp)
    if p.returncode != 0:
        print(f"{os.path.basename(launch_file):30} run failed ({p.returncode}): {p.stderr.strip()[:200]}")
        return None
    return json.load(open(stats))


def relocated(launch_file, tmp):
    """A copy of an SM launch file in `tmp` whose outputs land there (the PTX path made absolute)."""
    text = open(launch_file).read()
    ptx = os.path.normpath(os.path.join(os.path.dirname(launch_file), re.search(r"^ptx: (\S+)", text, re.M).group(1)))
    copy = os.path.join(tmp, os.path.basename(launch_file))
    open(copy, "w").write(re.sub(r"^ptx: \S+", "ptx: " + ptx, text, flags=re.M))
    return copy


rows = []  # (name, h100, model or None, unit)
with tempfile.TemporaryDirectory() as tmp:
    for r in csv.DictReader(open(os.path.join(micro, "h100_reference.csv"))):
        f = r["launch_file"]
        if not selected(f):
            continue
        s = run(os.path.join(micro, f), tmp, os.path.join(tmp, f + ".json"))
        us = s["launches"][0]["simulated_ns"] / 1000 if s else None
        rows.append((f, float(r["h100_us"]), us, "us"))
    h100 = {r["name"]: r for r in csv.DictReader(
        (l for l in open(os.path.join(root, "docs", "data", "h100_sm_micro.csv")) if not l.startswith("#")))}
    # Cases measured later on an H200 (the same GH100 SM and L2), where the H100 has none.
    for r in csv.DictReader(
            (l for l in open(os.path.join(root, "docs", "data", "h200_sm_micro.csv")) if not l.startswith("#"))):
        h100.setdefault(r["name"], r)
    for c in csv.DictReader(open(os.path.join(micro, "sm_micro_cases.csv"))):
        name = c["name"]
        if not selected(name):
            continue
        if name not in h100 or c["metric"] == "none":
            continue
        lf = relocated(os.path.join(micro, "sm", name + ".yaml"), tmp)
        s = run(lf, tmp, os.path.join(tmp, name + ".json"))
        model = None
        if s and c["metric"] == "block_cycles":
            cycles = array.array("q", open(os.path.join(tmp, name + ".cycles.bin"), "rb").read())  # raw s64
            model = sum(cycles) / len(cycles)
        elif s:
            timed = s["launches"][s.get("warmup_launches", 0):]
            if c["metric"] == "launch_ns":  # back to back: completion to completion (event_ns)
                timed = [l for l in timed if "event_ns" in l] or timed
                model = sum(l.get("event_ns", l["simulated_ns"]) for l in timed) / len(timed)
            else:
                model = sum(l["simulated_ns"] for l in timed) / len(timed)
        ref = float(h100[name]["ns" if c["metric"] == "kernel_ns" else "value"])
        rows.append((name, ref, model, "cycles" if c["metric"] == "block_cycles" else "ns"))
    # Thread-block clusters: block_cycles as above; rank0_cycles, the mean over each cluster's
    # rank-0 block (the one that measured).
    h100 = {r["name"]: r for r in csv.DictReader(
        (l for l in open(os.path.join(root, "docs", "data", "h100_cluster_micro.csv")) if not l.startswith("#")))}
    for r in csv.DictReader(  # cases measured later on an H200, where the H100 has none
            (l for l in open(os.path.join(root, "docs", "data", "h200_cluster_micro.csv")) if not l.startswith("#"))):
        h100.setdefault(r["name"], r)
    for c in csv.DictReader(open(os.path.join(micro, "cluster_micro_cases.csv"))):
        name = c["name"]
        if not selected(name) or name not in h100:
            continue
        s = run(relocated(os.path.join(micro, "cluster", name + ".yaml"), tmp), tmp, os.path.join(tmp, name + ".json"))
        model = None
        if s:
            cycles = array.array("q", open(os.path.join(tmp, name + ".cycles.bin"), "rb").read())
            step = int(c["cluster"]) if c["metric"] == "rank0_cycles" else 1
            picked = cycles[::step]
            model = sum(picked) / len(picked)
        rows.append((name, float(h100[name]["value"]), model, "cycles"))

bad = 0
print(f"{'case':30} {'unit':>6} {'H100':>10} {'model':>10} {'ratio':>6}")
for name, ref, model, unit in rows:
    if model is None:
        bad += 1
        continue
    ratio = model / ref
    ok = a.low <= ratio <= a.high
    bad += not ok
    print(f"{name:30} {unit:>6} {ref:10.1f} {model:10.1f} {ratio:6.2f}{'' if ok else '  OUT OF RANGE'}")
sys.exit(1 if bad else 0)
