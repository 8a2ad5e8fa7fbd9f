"""Chart: performance against a hardware cost, with the Pareto front drawn.

Performance is the speedup over the baseline point (higher is better); cost is a config value
such as the SM count, the total L2 size or the number of DRAM channels (lower is cheaper). A point
is on the front when no other point is at most as costly and at least as fast with one of the
two strictly better: the configurations worth building.
"""

from __future__ import annotations

from typing import List, Sequence, Tuple

from ..units import metric_axis_label, parameter_name
from .data import SweepResults, speedups
from .style import figure, grid_shape, is_numeric, parameter_axis, save


def pareto_front(points: Sequence[Tuple[float, float, object]]) -> List[Tuple[float, float, object]]:
    """The non-dominated (cost, performance, tag) triples, by increasing cost.

    Lower cost and higher performance are better. Among equal costs only the best performance
    can be on the front; a point must beat every cheaper point's performance strictly.
    """
    ordered = sorted(points, key=lambda p: (p[0], -p[1]))
    front, best = [], float("-inf")
    for cost, performance, tag in ordered:
        if performance > best:
            front.append((cost, performance, tag))
            best = performance
    return front


def plot_pareto(results: SweepResults, cost: str, baseline: int, directory: str,
                formats: Sequence[str], name: str) -> List[str]:
    table = speedups(results, baseline)
    table = table[(table["status"] == "passed") & table["speedup"].notna() & table[cost].notna()]
    workloads = [w for w in results.workloads if w in set(table["workload"])]
    if table.empty or not workloads or not is_numeric(table[cost].tolist()):
        return []
    rows, columns = grid_shape(len(workloads))
    fig = figure(4.6 * columns, 3.6 * rows + 0.6)
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    for ax, workload in zip(axes, workloads):
        data = table[table["workload"] == workload]
        parameter_axis(ax, cost, table[cost].tolist())
        costs, performance = data[cost].astype(float).tolist(), data["speedup"].astype(float).tolist()
        ax.scatter(costs, performance, color="0.65", zorder=2, label="point")
        front = pareto_front(list(zip(costs, performance, data["point"].astype(int).tolist())))
        ax.step([p[0] for p in front], [p[1] for p in front], where="post", color="C3", zorder=3,
                label="Pareto front")
        ax.scatter([p[0] for p in front], [p[1] for p in front], color="C3", zorder=4)
        for x, y, point in front:
            ax.annotate(f"#{point}", (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
        ax.set_title(workload, fontweight="bold")
        ax.set_ylabel(metric_axis_label("speedup"))
        ax.set_ylim(bottom=0)
    for ax in axes[len(workloads):]:
        ax.set_visible(False)
    axes[0].legend(loc="lower right")
    cost_name, _ = parameter_name(cost)
    fig.suptitle(f"Speedup over point #{baseline} against {cost_name}: the front is the "
                 f"cheapest configuration for each level of performance")
    return save(fig, directory, name, formats)
