#!/usr/bin/env python3
"""Runs one unmodified CUDA program of cuda_programs/bin through `scgpu exec`, as a user would, and
checks what a user would: exit status 0 and a last line "PASSED ..." (the program compares its
results with its own CPU reference); with --expect-lines FILE, that these lines (what the program
printed on an H200) appear in its output; with --stats, that the statistics JSON names every
kernel launch with its cycles."""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scgpu")
    ap.add_argument("program")
    ap.add_argument("--config", default="tiny")
    ap.add_argument("--mode", default="functional")
    ap.add_argument("--expect-lines")
    ap.add_argument("--stats", action="store_true")
    ap.add_argument("--timeout", type=float, default=600)
    a = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "stats.json")
        cmd = [a.scgpu, "exec", "--config", a.config, "--mode", a.mode]
        if a.stats:
            cmd += ["--stats-json", stats]
        cmd += ["--", a.program]
        print("running:", " ".join(cmd), flush=True)
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
        sys.stdout.write(r.stdout)
        sys.stderr.write(r.stderr)
        lines = r.stdout.strip().splitlines()
        ok = True
        if r.returncode != 0:
            print(f"FAIL: exit status {r.returncode}")
            ok = False
        if not lines or not lines[-1].startswith("PASSED"):
            print("FAIL: the last line is not PASSED")
            ok = False
        if a.expect_lines:
            with open(a.expect_lines) as f:
                for want in f.read().splitlines():
                    if want not in lines:
                        print(f"FAIL: missing line {want!r}")
                        ok = False
        if a.stats and ok:
            with open(stats) as f:
                s = json.load(f)
            launches = s["launches"]
            if not launches:
                print("FAIL: no launches in the statistics")
                ok = False
            for l in launches:
                if l["status"] != "cudaSuccess" or l["warp_instructions"] <= 0 or (
                        a.mode == "timing" and l["core_cycles"] <= 0):
                    print(f"FAIL: launch {l}")
                    ok = False
            if s["totals"]["launches"] != len(launches):
                print("FAIL: totals.launches")
                ok = False
            if a.mode == "timing" and "components" not in s.get("stats", {}):
                print("FAIL: no component statistics")
                ok = False
            print(f"statistics: {len(launches)} launches, "
                  f"{s['totals']['core_cycles']} core cycles in all")
    print("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
