"""Matplotlib set-up shared by every chart: headless backend, a readable style, saving.

The Agg backend is chosen before pyplot is imported, so that plotting works without a display
(CI, ssh, Dask workers). SVG output is made reproducible (fixed hash salt, no date), so that
regenerating an unchanged chart does not change the file.
"""

from __future__ import annotations

import math
import os
from typing import Dict, List, Sequence, Tuple

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator  # noqa: E402

from ..units import format_parameter, parameter_axis_label  # noqa: E402

STYLE = {
    "font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10, "figure.titlesize": 13,
    "legend.fontsize": 9, "axes.grid": True, "grid.alpha": 0.3, "axes.spines.top": False,
    "axes.spines.right": False, "svg.hashsalt": "scgpu",
    # SVG text stays text: searchable, selectable, and a third of the size of glyph paths.
    "svg.fonttype": "none", "figure.dpi": 100, "savefig.dpi": 120,
}


def figure(width: float, height: float):
    plt.rcParams.update(STYLE)
    return plt.figure(figsize=(width, height), layout="constrained")


def save(fig, directory: str, name: str, formats: Sequence[str]) -> List[str]:
    """Write `fig` as DIRECTORY/NAME.FORMAT for each format; returns the paths."""
    os.makedirs(directory, exist_ok=True)
    paths = []
    for extension in formats:
        path = os.path.join(directory, f"{name}.{extension}")
        metadata = {"Date": None} if extension == "svg" else None
        # "tight" keeps legends placed outside the axes inside the image.
        fig.savefig(path, format=extension, metadata=metadata, bbox_inches="tight")
        paths.append(path)
    plt.close(fig)
    return paths


def is_numeric(values) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) and not
               (isinstance(v, float) and math.isnan(v)) for v in values)


def parameter_axis(ax, key: str, values: Sequence) -> Dict:
    """Lay out the x axis for parameter `key`; returns value -> x position.

    Numbers are placed at their value (log2 when they span a factor of 8 or more, as sizes and
    counts usually do), with a tick at each value; anything else is a category.
    """
    unique = list(dict.fromkeys(values))
    if is_numeric(unique):
        ordered = sorted(unique)
        if ordered[0] > 0 and ordered[-1] / ordered[0] >= 8:
            ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator([float(v) for v in ordered]))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: format_parameter(key, _as_int(x))))
        positions = {v: float(v) for v in ordered}
    else:
        positions = {v: float(i) for i, v in enumerate(unique)}
        ax.set_xticks(list(positions.values()))
        ax.set_xticklabels([format_parameter(key, v) for v in unique])
        ax.set_xlim(-0.5, len(unique) - 0.5)
    ax.set_xlabel(parameter_axis_label(key))
    return positions


def _as_int(x: float):
    return int(x) if float(x) == int(x) else x


def grid_shape(count: int, max_columns: int = 3) -> Tuple[int, int]:
    columns = min(count, max_columns)
    return math.ceil(count / columns), columns
