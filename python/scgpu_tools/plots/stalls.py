"""Chart: where the warp schedulers' cycles go, per point (stacked bars of stall reasons).

The simulator's `stall.<reason>.pct` metrics split every scheduler cycle into one state
(`selected` is the cycle a warp issued), so each bar adds up to 100 %. Reasons that are zero
everywhere are left out of the legend.
"""

from __future__ import annotations

from typing import List, Sequence

import numpy as np

from ..units import STALL_RE, stall_reason
from .data import SweepResults
from .style import figure, grid_shape, save


def stall_columns(columns) -> List[str]:
    return [name for name in columns if STALL_RE.match(name)]


def plot_stalls(results: SweepResults, directory: str, formats: Sequence[str], name: str) -> List[str]:
    runs = results.passed
    reasons = [c for c in stall_columns(runs.columns) if runs[c].fillna(0).abs().sum() > 0]
    workloads = [w for w in results.workloads if w in set(runs["workload"])]
    if not reasons or not workloads:
        return []
    # Largest share first, so the big reasons sit at the left of every bar.
    reasons.sort(key=lambda c: -runs[c].fillna(0).mean())
    points = results.points()
    rows, columns = grid_shape(len(workloads), max_columns=2)
    fig = figure(6.0 * columns + 0.5, (0.3 * len(points) + 1.2) * rows + 1.0)
    axes = np.atleast_1d(fig.subplots(rows, columns, squeeze=False)).ravel()
    colors = {reason: (f"C{i}" if i < 10 else f"tab:{['olive', 'cyan', 'gray', 'brown'][i % 4]}")
              for i, reason in enumerate(reasons)}
    for ax, workload in zip(axes, workloads):
        data = runs[runs["workload"] == workload].set_index("point")
        left = np.zeros(len(points))
        for reason in reasons:
            values = np.array([float(data.loc[p, reason]) if p in data.index else 0.0 for p in points])
            ax.barh(np.arange(len(points)), np.nan_to_num(values), left=left, height=0.75,
                    color=colors[reason], label=stall_reason(reason))
            left += np.nan_to_num(values)
        for position, point in enumerate(points):
            if point not in data.index:
                status = results.runs[(results.runs["workload"] == workload) &
                                      (results.runs["point"] == point)]["status"]
                ax.text(1, position, status.iloc[0] if len(status) else "missing", va="center",
                        fontsize=8, color="firebrick")
        ax.set_yticks(np.arange(len(points)))
        ax.set_yticklabels([results.point_labels.get(p, f"#{p}") for p in points])
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("share of scheduler cycles (%)")
        ax.set_title(workload, fontweight="bold")
        ax.grid(axis="y", visible=False)
    for ax in axes[len(workloads):]:
        ax.set_visible(False)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), title="scheduler state")
    fig.suptitle("Stall reasons per point (each bar: 100 % of warp-scheduler cycles; "
                 "'selected' = issued)")
    return save(fig, directory, name, formats)
