"""Chart: metrics against one swept parameter, one column of panels per workload.

Each panel draws one line per combination of the other swept parameters, so a two-parameter
sweep (L2 size x DRAM channels) shows the effect of one parameter at each value of the other.
"""

from __future__ import annotations

from typing import List, Sequence

from ..units import metric_axis_label, metric_info, parameter_name, short_parameter
from .data import SweepResults
from .style import figure, parameter_axis, save


def _series_label(row, others: Sequence[str]) -> str:
    return ", ".join(short_parameter(key, _plain(row[key])) for key in others) or "all points"


def _plain(value):
    return value.item() if hasattr(value, "item") else value


def plot_against_parameter(results: SweepResults, key: str, metrics: Sequence[str],
                           directory: str, formats: Sequence[str], name: str) -> List[str]:
    runs = results.passed.copy()
    workloads = [w for w in results.workloads if w in set(runs["workload"])]
    metrics = [m for m in metrics if m in runs.columns]
    if runs.empty or not workloads or not metrics:
        return []
    others = [k for k in results.varied if k != key]
    runs["_series"] = [_series_label(row, others) for _, row in runs.iterrows()]
    series = list(dict.fromkeys(runs.sort_values("point")["_series"]))
    all_values = runs[key].tolist()

    fig = figure(3.6 * len(workloads) + (2.4 if len(series) > 1 else 0), 2.6 * len(metrics) + 0.9)
    axes = fig.subplots(len(metrics), len(workloads), squeeze=False)
    colors = [f"C{i % 10}" for i in range(len(series))]
    handles = {}
    for row_index, metric in enumerate(metrics):
        _, _, factor = metric_info(metric)
        for column_index, workload in enumerate(workloads):
            ax = axes[row_index][column_index]
            positions = parameter_axis(ax, key, all_values)
            data = runs[runs["workload"] == workload]
            for color, label in zip(colors, series):
                points = data[data["_series"] == label]
                if points.empty:
                    continue
                pairs = sorted((positions[_plain(x)], y * factor) for x, y in
                               zip(points[key].tolist(), points[metric].tolist()))
                line, = ax.plot([p[0] for p in pairs], [p[1] for p in pairs], marker="o",
                                color=color, label=label)
                handles.setdefault(label, line)
            if row_index == 0:
                ax.set_title(workload, fontweight="bold")
            if column_index == 0:
                ax.set_ylabel(metric_axis_label(metric))
            if row_index != len(metrics) - 1:
                ax.set_xlabel("")
            ax.set_ylim(bottom=0)
    parameter, unit = parameter_name(key)
    left_out = len(results.not_passed)
    title = f"Metrics against {parameter}" + (f" ({unit})" if unit and unit != "bytes" else "")
    zipped = [parameter_name(k)[0] for k, lead in results.dependent.items() if lead == key]
    if zipped:
        title += f", zipped with {', '.join(zipped)}"
    if left_out:
        title += f"\n{left_out} runs that did not pass are left out"
    fig.suptitle(title)
    if len(series) > 1:
        fig.legend(list(handles.values()), list(handles.keys()), loc="center left",
                   bbox_to_anchor=(1.0, 0.5), title=", ".join(parameter_name(k)[0] for k in others))
    return save(fig, directory, name, formats)
