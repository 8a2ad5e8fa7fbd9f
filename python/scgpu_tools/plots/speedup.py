"""Chart: speedup of every point over a baseline point, per workload (grouped bars).

Speedup is the baseline's simulated time over the point's, so 2.0 means twice as fast. A run
that did not pass has no bar; its status is written where the bar would be.
"""

from __future__ import annotations

from typing import List, Sequence

import numpy as np

from .data import SweepResults, speedups
from .style import figure, save


def plot_speedup(results: SweepResults, baseline: int, directory: str, formats: Sequence[str],
                 name: str) -> List[str]:
    table = speedups(results, baseline)
    points = results.points()
    workloads = results.workloads
    if not points or not workloads:
        return []
    bar = 0.8 / len(workloads)
    height = max(2.5, 0.16 * len(points) * len(workloads) + 0.2 * len(points) + 1.2)
    fig = figure(8.5, height)
    ax = fig.subplots()
    positions = np.arange(len(points))
    largest = np.nanmax(table["speedup"].to_numpy(dtype=float)) if table["speedup"].notna().any() else 1.0
    for index, workload in enumerate(workloads):
        rows = table[table["workload"] == workload].set_index("point")
        offsets = positions - 0.4 + bar * (index + 0.5)
        values = [float(rows.loc[p, "speedup"]) if p in rows.index else float("nan") for p in points]
        bars = ax.barh(offsets, np.nan_to_num(values), height=bar * 0.9, label=workload,
                       color=f"C{index % 10}")
        for rectangle, value, point in zip(bars, values, points):
            if np.isnan(value):
                status = rows.loc[point, "status"] if point in rows.index else "missing"
                ax.text(0.02 * largest, rectangle.get_y() + rectangle.get_height() / 2,
                        f"{workload}: {status}", va="center", fontsize=8, color="firebrick")
            elif len(points) * len(workloads) <= 60:
                ax.text(value, rectangle.get_y() + rectangle.get_height() / 2, f" {value:.2f}x",
                        va="center", fontsize=7)
    ax.axvline(1.0, color="black", linestyle="--", linewidth=1)
    ax.set_yticks(positions)
    ax.set_yticklabels([results.point_labels.get(p, f"#{p}") for p in points])
    ax.invert_yaxis()
    ax.set_xlim(0, largest * 1.15)
    ax.set_xlabel("speedup over the baseline (baseline simulated time / simulated time; higher is faster)")
    ax.set_title(f"Speedup over point {results.point_labels.get(baseline, baseline)}")
    if len(workloads) > 1:
        ax.legend(title="workload", loc="lower right")
    return save(fig, directory, name, formats)
