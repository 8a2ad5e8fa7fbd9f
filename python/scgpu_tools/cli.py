"""Command line: `python3 -m scgpu_tools sweep|plot|report ...`.

Exit statuses follow the simulator's where they overlap: 0 done, 1 some runs could not be run
(sweep), 3 an input error (sweep file, results directory, statistics file, missing simulator),
130 interrupted. Argument errors are 2, as argparse reports them.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import List, Optional

from .errors import SweepFileError, ToolError

EPILOG = "docs/design-exploration.md describes the sweep file and the outputs."


def build_parser() -> argparse.ArgumentParser:
    # `scgpu sweep|plot|report` runs this module and sets SCGPU_TOOLS_PROG=scgpu, so that usage
    # and help name the command the user typed.
    parser = argparse.ArgumentParser(
        prog=os.environ.get("SCGPU_TOOLS_PROG", "python3 -m scgpu_tools"), description="Design-space exploration for scgpu: parameter sweeps, "
        "their plots, and an HTML report of one run.", epilog=EPILOG)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sweep = commands.add_parser(
        "sweep", help="run (or resume) a parameter sweep",
        description="Expand SWEEP.yaml into points x workloads, run those not finished in DIR "
                    "yet, and write DIR/results.csv and DIR/results.sqlite (one row per point x "
                    "workload x kernel launch). Failed runs are rows too.", epilog=EPILOG)
    sweep.add_argument("sweep_file", metavar="SWEEP.yaml")
    sweep.add_argument("--out", "-o", metavar="DIR", help="results directory (required unless --dry-run)")
    sweep.add_argument("--jobs", "-j", type=int, default=0, metavar="N",
                       help="simulators running at once (local engine; default: cores / threads:)")
    sweep.add_argument("--dask", metavar="ADDRESS",
                       help="run on a Dask cluster, e.g. tcp://scheduler:8786, instead of locally")
    sweep.add_argument("--dask-timeout", type=float, default=30.0, metavar="SECONDS",
                       help="Dask: how long to wait for the scheduler and a first worker (default 30)")
    sweep.add_argument("--retries", type=int, default=3, metavar="N",
                       help="Dask: times a failing task is retried (default 3)")
    sweep.add_argument("--scgpu", metavar="PATH",
                       help="simulator binary (default: $SCGPU, then build/scgpu, then PATH)")
    sweep.add_argument("--dry-run", action="store_true",
                       help="check the sweep file and list the points; run nothing")
    sweep.add_argument("--quiet", "-q", action="store_true", help="no progress output")

    plot = commands.add_parser(
        "plot", help="plot the results of a sweep",
        description="Charts from DIR/results.csv: each metric against each swept parameter, "
                    "speedup over a baseline point, stall reasons per point, Pareto fronts of "
                    "performance against cost. PNG and SVG.", epilog=EPILOG)
    plot.add_argument("results_dir", metavar="DIR")
    plot.add_argument("--out", "-o", metavar="PLOTDIR", help="where the charts go (default DIR/plots)")
    plot.add_argument("--metric", action="append", metavar="NAME",
                      help="metric to plot against parameters (repeatable; default: simulated "
                           "time and IPC)")
    plot.add_argument("--baseline", metavar="POINT|KEY=VALUE[,KEY=VALUE]",
                      help="baseline of the speedup chart: a point index or the values that "
                           "select it (default: point 0)")
    plot.add_argument("--cost", action="append", metavar="COLUMN",
                      help="cost axis of a Pareto chart (repeatable; default: whichever of SM "
                           "count, total L2 size and DRAM channels varies)")
    plot.add_argument("--format", default="png,svg", metavar="png,svg",
                      help="file formats (default png,svg)")
    plot.add_argument("--prefix", default="sweep_", help="file-name prefix (default sweep_)")

    report = commands.add_parser(
        "report", help="HTML report of one --stats-json file",
        description="One self-contained HTML page from a `scgpu run --stats-json` file: "
                    "launches, top kernels, stall reasons, DRAM and L2 bandwidth and hit rates, "
                    "per-SM occupancy, time series when the file has samples.", epilog=EPILOG)
    report.add_argument("stats_file", metavar="STATS.json")
    report.add_argument("-o", "--out", required=True, metavar="REPORT.html")
    report.add_argument("--title", help="page title (default: the workload and config)")
    report.add_argument("--charts-dir", metavar="DIR",
                        help="also write each chart as a PNG file into DIR")
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "sweep":
            return _sweep(args)
        if args.command == "plot":
            from .plots import make_plots
            written = make_plots(args.results_dir, args.out, metrics=args.metric,
                                 baseline=args.baseline, costs=args.cost,
                                 formats=[f.strip() for f in args.format.split(",") if f.strip()],
                                 prefix=args.prefix)
            for path in written:
                print(path)
            return 0
        if args.command == "report":
            from .report import write_report
            write_report(args.stats_file, args.out, title=args.title, charts_dir=args.charts_dir)
            print(args.out)
            return 0
    except SweepFileError as error:
        print(error, file=sys.stderr)          # already FILE:LINE:COL: error: ..., one per line
        return error.exit_status
    except ToolError as error:
        print(f"{_name()} {args.command}: error: {error}", file=sys.stderr)
        return error.exit_status
    except KeyboardInterrupt:
        print(f"{_name()} {args.command}: interrupted", file=sys.stderr)
        return 130
    return 2


def _name() -> str:
    return os.environ.get("SCGPU_TOOLS_PROG", "scgpu_tools")


def _stop_on_sigterm(signum, frame):
    # `kill` or a batch system ending the sweep: stop as for Ctrl-C, so that running simulators
    # are stopped and the tables are written, instead of leaving orphans behind.
    raise KeyboardInterrupt


def _sweep(args) -> int:
    from .sweep import dry_run, run_sweep
    from .sweepfile import load_sweep

    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    if args.dry_run:
        return dry_run(load_sweep(args.sweep_file), args.out, sys.stdout)
    if not args.out:
        raise ToolError("sweep needs --out DIR (the results directory)")
    summary = run_sweep(args.sweep_file, args.out, jobs=args.jobs, dask=args.dask,
                        scgpu=args.scgpu, retries=args.retries, quiet=args.quiet,
                        dask_timeout_s=args.dask_timeout)
    return summary.exit_status
