"""`scgpu_tools plot DIR`: the charts of a sweep's results.

Files written into PLOTDIR (default DIR/plots), each as PNG and SVG:

* `sweep_vs_<parameter>`    metrics against each swept parameter, a column per workload;
* `sweep_speedup`           speedup of every point over the baseline point;
* `sweep_stalls`            stall-reason breakdown per point (stacked bars);
* `sweep_pareto_<cost>`     speedup against a cost (SM count, L2 size, DRAM channels) with the
                            Pareto front.
"""

from __future__ import annotations

import difflib
import re
import sys
from typing import List, Optional, Sequence, TextIO

from ..errors import ToolError
from .data import SweepResults, load_results, select_baseline
from .parameter import plot_against_parameter
from .pareto import plot_pareto
from .speedup import plot_speedup
from .stalls import plot_stalls

DEFAULT_METRICS = ["total.simulated_ns", "gpu.ipc", "dram__bytes.sum.per_second",
                   "lts__t_sector_hit_rate.pct"]
DEFAULT_COSTS = ["config.sm.count", "config.l2_total_bytes", "config.dram.channels"]
FORMATS = ("png", "svg", "pdf")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")


def _resolve_column(results: SweepResults, name: str, what: str) -> str:
    for candidate in (name, f"config.{name}"):
        if candidate in results.runs.columns:
            return candidate
    close = difflib.get_close_matches(name, list(results.runs.columns), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise ToolError(f"{what} '{name}' is not a column of results.csv{hint}")


def default_costs(results: SweepResults) -> List[str]:
    """The cost columns that vary between passed runs."""
    passed = results.passed
    return [c for c in DEFAULT_COSTS if c in passed.columns and passed[c].nunique(dropna=True) > 1]


def make_plots(results_dir: str, out_dir: Optional[str] = None, metrics: Optional[Sequence[str]] = None,
               baseline: Optional[str] = None, costs: Optional[Sequence[str]] = None,
               formats: Sequence[str] = ("png", "svg"), prefix: str = "sweep_",
               stream: Optional[TextIO] = None) -> List[str]:
    """Write every chart; returns the paths written."""
    stream = stream or sys.stderr
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise ToolError(f"--format: unknown format {', '.join(unknown) or '(none)'} (use "
                        f"{', '.join(FORMATS)})")
    results = load_results(results_dir)
    if results.passed.empty:
        raise ToolError(f"{results_dir}: no run passed, so there is nothing to plot (the "
                        f"status and message columns of results.csv say why)")
    out_dir = out_dir or f"{results_dir.rstrip('/')}/plots"
    metrics = [_resolve_column(results, m, "metric") for m in metrics] if metrics else \
        [m for m in DEFAULT_METRICS if m in results.runs.columns]
    written: List[str] = []
    if not results.varied:
        stream.write("plot: no parameter takes more than one value in the runs that passed; no "
                     "parameter charts\n")
    for key in results.varied:
        written += plot_against_parameter(results, key, metrics, out_dir, formats,
                                          f"{prefix}vs_{_slug(key)}")
    base = select_baseline(results, baseline)
    written += plot_speedup(results, base, out_dir, formats, f"{prefix}speedup")
    stalls = plot_stalls(results, out_dir, formats, f"{prefix}stalls")
    if not stalls:
        stream.write("plot: no stall statistics in the results (functional mode, or metrics: "
                     "left them out); no stall chart\n")
    written += stalls
    chosen_costs = [_resolve_column(results, c, "cost") for c in costs] if costs else default_costs(results)
    if not chosen_costs:
        stream.write("plot: SM count, L2 size and DRAM channels are the same in every point; no "
                     "Pareto chart (name a cost with --cost COLUMN)\n")
    for cost in chosen_costs:
        pareto = plot_pareto(results, cost, base, out_dir, formats, f"{prefix}pareto_{_slug(cost)}")
        if not pareto:
            stream.write(f"plot: cost '{cost}' is not numeric; no Pareto chart for it\n")
        written += pareto
    return written
