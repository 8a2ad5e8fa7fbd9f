"""The report's charts, each a matplotlib Figure built from derive.py's numbers.

Functions return None when there is nothing to draw, so the page can say so instead.
"""

from __future__ import annotations

import math
from typing import Dict, List, Optional

import numpy as np
from matplotlib.ticker import MaxNLocator

from ..plots.style import figure
from ..units import metric_info

MAX_SERIES = 12


def _instance_axis(ax, indices: List[int]) -> None:
    """Ticks at whole instance numbers (slice 0, 1, ...), every one when there are few."""
    if len(indices) <= 24:
        ax.set_xticks(indices)
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def launches_chart(launches: List[Dict]):
    if len(launches) < 2:
        return None
    fig = figure(9, 2.8)
    ax = fig.subplots()
    kernels = list(dict.fromkeys(l["kernel"] for l in launches))
    colors = {k: f"C{i % 10}" for i, k in enumerate(kernels)}
    ax.bar([l["index"] for l in launches], [l["core_cycles"] for l in launches],
           color=[colors[l["kernel"]] for l in launches])
    for kernel in kernels:
        ax.bar([], [], color=colors[kernel], label=kernel)
    _instance_axis(ax, [l["index"] for l in launches])
    ax.set_xlabel("launch #")
    ax.set_ylabel("core cycles")
    ax.set_title("Core cycles per launch")
    if len(kernels) > 1:
        ax.legend(title="kernel")
    return fig


def kernels_chart(kernels: List[Dict]):
    if not kernels:
        return None
    top = kernels[:10]
    fig = figure(8, 0.45 * len(top) + 1.2)
    ax = fig.subplots()
    ax.barh(range(len(top)), [k["share_pct"] for k in top], color="C0")
    ax.set_yticks(range(len(top)))
    ax.set_yticklabels([f"{k['kernel']} ({k['launches']}x)" for k in top])
    ax.invert_yaxis()
    for index, kernel in enumerate(top):
        ax.text(kernel["share_pct"], index, f" {kernel['share_pct']:.1f} %", va="center", fontsize=8)
    ax.set_xlim(0, 110)
    ax.set_xlabel("share of simulated time (%)")
    ax.set_title("Top kernels by simulated time")
    return fig


def stalls_chart(breakdown: Dict[str, float]):
    shown = {k: v for k, v in breakdown.items() if v > 0}
    if not shown:
        return None
    fig = figure(8, 0.35 * len(shown) + 1.2)
    ax = fig.subplots()
    names = list(shown)
    colors = ["C2" if name == "selected" else "C3" if name == "long_scoreboard" else "C0" for name in names]
    ax.barh(range(len(names)), list(shown.values()), color=colors)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels([name.replace("_", " ") for name in names])
    ax.invert_yaxis()
    for index, value in enumerate(shown.values()):
        ax.text(value, index, f" {value:.1f} %", va="center", fontsize=8)
    ax.set_xlim(0, max(shown.values()) * 1.15)
    ax.set_xlabel("share of warp-scheduler cycles (%); 'selected' = a warp issued")
    ax.set_title("Stall reasons")
    return fig


def dram_chart(channels: List[Dict], peak_per_channel_GBps: Optional[float]):
    if not channels:
        return None
    fig = figure(9, 3.2)
    left, right = fig.subplots(1, 2, width_ratios=[2, 1]) if len(channels) > 1 else (fig.subplots(), None)
    x = [c["channel"] for c in channels]
    left.bar(x, [c["GBps"] for c in channels], color="C0", width=0.8)
    title = "DRAM bandwidth per channel"
    if peak_per_channel_GBps:
        title += f" (peak {peak_per_channel_GBps:,.1f} GB/s each)"
        # The peak line only helps when the bars reach a visible fraction of it.
        if max(c["GBps"] for c in channels) >= 0.25 * peak_per_channel_GBps:
            left.axhline(peak_per_channel_GBps, color="C3", linestyle="--", label="peak per channel")
            left.legend(loc="lower right")
    _instance_axis(left, x)
    left.set_xlabel("DRAM channel")
    left.set_ylabel("bandwidth (GB/s, over the whole run)")
    left.set_title(title)
    if right is not None:
        hit = [c["row_hit_pct"] if c["row_hit_pct"] is not None else 0 for c in channels]
        right.hist(hit, bins=min(20, max(5, len(channels) // 4)), range=(0, 100), color="C1")
        right.set_xlabel("row-buffer hit rate (%)")
        right.set_ylabel("channels")
        right.set_title("Row-buffer hit rate")
    return fig


def l2_chart(slices: List[Dict]):
    if not slices:
        return None
    fig = figure(9, 3.0)
    left, right = fig.subplots(1, 2)
    x = [s["slice"] for s in slices]
    left.bar(x, [s["hit_pct"] if s["hit_pct"] is not None else 0 for s in slices], color="C2")
    left.set_ylim(0, 100)
    _instance_axis(left, x)
    _instance_axis(right, x)
    left.set_xlabel("L2 slice")
    left.set_ylabel("sector hit rate (%)")
    left.set_title("L2 hit rate per slice")
    right.bar(x, [s["requests"] for s in slices], color="C0")
    right.set_xlabel("L2 slice")
    right.set_ylabel("requests (reads + writes)")
    right.set_title("L2 requests per slice")
    return fig


def sm_heatmap(rows: List[Dict]):
    """SMs laid out on a grid (row-major), one panel per quantity."""
    if not rows:
        return None
    count = len(rows)
    columns = min(count, 16) if count > 4 else count
    grid_rows = math.ceil(count / columns)
    quantities = [("occupancy_pct", "achieved occupancy (% of max warps)", "viridis", 100.0),
                  ("active_pct", "active cycles (% of GPU cycles)", "cividis", 100.0),
                  ("ipc", "IPC (warp instructions per GPU cycle)", "magma", None)]
    fig = figure(min(5.0 * 3, 3.2 * 3 + columns * 0.3), 1.6 + grid_rows * 0.45 + 0.6)
    axes = fig.subplots(1, 3)
    for ax, (key, title, cmap, vmax) in zip(axes, quantities):
        data = np.full(grid_rows * columns, np.nan)
        for row in rows:
            data[row["sm"]] = row[key] if row["sm"] < data.size else np.nan
        data = data.reshape(grid_rows, columns)
        top = vmax if vmax is not None else max(1e-9, float(np.nanmax(data)))
        image = ax.imshow(np.ma.masked_invalid(data), cmap=cmap, vmin=0, vmax=top, aspect="auto")
        if count <= 64:
            for index, row in enumerate(rows):
                r, c = divmod(row["sm"], columns)
                value = row[key]
                text = f"{value:.0f}" if key != "ipc" else f"{value:.2f}"
                ax.text(c, r, text, ha="center", va="center", fontsize=7,
                        color="white" if value < 0.6 * top else "black")
        ax.set_xticks(range(columns))
        ax.set_xticklabels([str(c) for c in range(columns)], fontsize=7)
        ax.set_yticks(range(grid_rows))
        ax.set_yticklabels([f"SM {r * columns}" for r in range(grid_rows)], fontsize=7)
        ax.grid(False)
        ax.set_title(title, fontsize=9)
        fig.colorbar(image, ax=ax, shrink=0.8)
    fig.suptitle(f"Per-SM activity ({count} SMs; SM n is row n // {columns}, column n % {columns})")
    return fig


def histogram_chart(name: str, histogram: Dict):
    buckets = histogram.get("buckets") or []
    if not buckets:
        return None
    width = histogram.get("bucket_width") or 1
    fig = figure(6, 2.6)
    ax = fig.subplots()
    ax.bar([i * width for i in range(len(buckets))], buckets, width=width * 0.9, align="edge", color="C4")
    ax.set_xlabel(f"value (buckets of {width}; the last one holds everything above)")
    ax.set_ylabel("samples")
    ax.set_title(f"{name}: {histogram.get('samples', sum(buckets))} samples, mean "
                 f"{histogram.get('mean', 0):.1f}, max {histogram.get('max', 0)}")
    return fig


def _rank(name: str) -> tuple:
    """Known metrics first (in the order units.METRICS lists them), then by name."""
    from ..units import METRICS

    known = list(METRICS)
    return (known.index(name) if name in known else len(known), name)


def timeseries_chart(rows: List[Dict], time_key: Optional[str]):
    """Small multiples, one per quantity. Series that only grow (cumulative counters) are shown
    as their change per sample interval, which is what varies over time."""
    names = sorted({name for row in rows for name in row if name != time_key and "[" not in name},
                   key=_rank)
    if not names:
        return None, 0
    shown, omitted = names[:MAX_SERIES], max(0, len(names) - MAX_SERIES)
    x = [row.get(time_key) for row in rows] if time_key else list(range(len(rows)))
    columns = min(3, len(shown))
    grid_rows = math.ceil(len(shown) / columns)
    fig = figure(4.0 * columns, 2.4 * grid_rows + 0.6)
    axes = np.atleast_1d(fig.subplots(grid_rows, columns, squeeze=False)).ravel()
    for ax, name in zip(axes, shown):
        values = np.array([row.get(name, np.nan) for row in rows], dtype=float)
        title, unit, factor = metric_info(name)
        cumulative = (len(values) > 2 and np.all(np.diff(values[~np.isnan(values)]) >= 0)
                      and not name.endswith((".pct", "ipc")) and factor == 1.0 and unit == "")
        if cumulative:
            ax.plot(x[1:], np.diff(values), color="C0")
            ax.set_title(f"{title} (per interval)", fontsize=9)
        else:
            ax.plot(x, values * factor, color="C0")
            ax.set_title(f"{title}" + (f" ({unit})" if unit else ""), fontsize=9)
        ax.set_xlabel(time_key or "sample")
    for ax in axes[len(shown):]:
        ax.set_visible(False)
    fig.suptitle("Time series (samples)")
    return fig, omitted
