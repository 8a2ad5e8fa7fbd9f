#!/usr/bin/env python3
"""Runs the TMA microbenchmarks (validation/micro/tma/*.yaml) on the model and prints them beside
the H100's (docs/data/h100_tma_probe.txt, from scripts/h100/tma_probe.sh):
  lat_<rows>: median cycles from a box copy's issue to its mbarrier phase (one thread, 32 x rows floats)
  s_<case>:   a block's cycles for its stream of boxes (mean over blocks)
Usage: scripts/tma_vs_h100.py path/to/scgpu [--config hopper] [--set k=v ...]
Needs NumPy (python3-numpy) to read the model's outputs."""
import argparse, os, shutil, statistics, subprocess, sys, tempfile

import numpy as np

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
micro = os.path.join(root, "validation", "micro")


def silicon():
    lat, stream = {}, {}
    for line in open(os.path.join(root, "docs", "data", "h100_tma_probe.txt")):
        f = line.strip().split(",")
        if f[0] == "latency" and f[1].isdigit():
            lat[int(f[1])] = float(f[4])  # median
        elif f[0] == "stream" and f[1] != "name":
            stream[f[1]] = float(f[7])  # mean cycles per block
    return lat, stream


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scgpu")
    ap.add_argument("--config", default="hopper")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--only", default="", help="comma-separated case names (default: all)")
    a = ap.parse_args()
    lat, stream = silicon()
    print(f"{'case':22} {'H100':>10} {'model':>10} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(micro, "tma_micro.ptx"), tmp)
        for name in sorted(os.listdir(os.path.join(micro, "tma"))):
            case = name[:-5]
            text = open(os.path.join(micro, "tma", name)).read().replace("../tma_micro.ptx", "tma_micro.ptx")
            text = text.replace("cyc: {type: s64, count: ", "cyc: {type: s64, output: out.npy, count: ")
            path = os.path.join(tmp, name)
            open(path, "w").write(text)
            if a.only and case not in a.only.split(","):
                continue
            cmd = [a.scgpu, "run", path, "--config", a.config] + [x for s in a.set for x in ("--set", s)]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"{case}: scgpu failed\n{r.stderr}", file=sys.stderr)
                return 1
            out = np.load(os.path.join(tmp, "out.npy"))
            if case.startswith("lat_"):
                model, h100 = statistics.median(out[1:].tolist()), lat[int(case[4:])]  # the first warms the barrier
            else:
                grid = int(text.split("grid: ")[1].split()[0])
                model, h100 = float(out[:grid].mean()), stream.get(case[2:])
            if h100 is None:  # not measured on the H100 (yet)
                print(f"{case:22} {'-':>10} {model:10.0f}")
                continue
            print(f"{case:22} {h100:10.0f} {model:10.0f} {model / h100:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
