#!/usr/bin/env python3
"""Warp finish order, model against H100 (validation/micro/warp_order.cu).

For each case of docs/data/h100_warp_order.csv, runs the model's launch file
(validation/micro/warp_order/CASE.yaml), reads every warp's loop start and end clocks and prints,
for the H100 (median over runs and blocks) and the model (median over blocks), the first, median
and last warp's end, in cycles from the block's first start. A policy that starves young warps
shows as a first end far below the last.

  scripts/warp_order_vs_h100.py build/scgpu [--set KEY=VALUE ...]
"""
import argparse
import array
import csv
import os
import statistics
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def summary(blocks):
    """blocks: list of [(start, end)] per block -> (first, median, last) end, medians over blocks."""
    firsts, medians, lasts = [], [], []
    for warps in blocks:
        base = min(s for s, _ in warps)
        ends = sorted(e - base for _, e in warps)
        firsts.append(ends[0])
        medians.append(ends[len(ends) // 2])
        lasts.append(ends[-1])
    return statistics.median(firsts), statistics.median(medians), statistics.median(lasts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scgpu")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    data = os.path.join(ROOT, "docs/data/h100_warp_order.csv")
    h100 = defaultdict(lambda: defaultdict(list))
    with open(data) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            h100[r["case"]][(r["run"], r["block_index"])].append((int(r["start"]), int(r["end"])))
    print(f"{'case':14} {'':6} {'first':>8} {'median':>8} {'last':>8}  model/H100 (last)")
    for case, blocks in h100.items():
        if args.only and case not in args.only.split(","):
            continue
        launch = os.path.join(ROOT, "validation/micro/warp_order", case + ".yaml")
        cmd = [args.scgpu, "run", launch, "--config", "hopper", "--quiet"]
        for s in args.set:
            cmd += ["--set", s]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        raw = array.array("q", open(os.path.join(ROOT, "validation/micro/warp_order", case + ".clocks.bin"), "rb").read())
        n = len(raw) // 2
        warps_per_block = n // len({k[1] for k in blocks})
        model = [[(raw[2 * i], raw[2 * i + 1]) for i in range(b, b + warps_per_block)] for b in range(0, n, warps_per_block)]
        hs, ms = summary(list(blocks.values())), summary(model)
        print(f"{case:14} {'H100':6} {hs[0]:8.0f} {hs[1]:8.0f} {hs[2]:8.0f}")
        print(f"{'':14} {'model':6} {ms[0]:8.0f} {ms[1]:8.0f} {ms[2]:8.0f}  {ms[2] / hs[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
