"""`scgpu_tools report STATS.json -o report.html`: one self-contained HTML page for one run.

Sections: summary (key numbers, config), fault and checks, launches, top kernels, stall reasons,
DRAM and L2 (bandwidth, hit rates, per channel and slice), per-SM occupancy heatmap, histograms,
time series (when the file has a `samples` array), the effective config and every counter.
"""

from __future__ import annotations

import json
import os
from typing import List, Optional

from ..errors import ToolError
from ..store import write_atomically
from . import derive
from .html import esc, page
from .sections import SECTIONS, ChartSink, verdict


def load_stats(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as stream:
            stats = json.load(stream)
    except OSError as error:
        raise ToolError(f"{path}: cannot read: {error.strerror or error}")
    except ValueError as error:
        raise ToolError(f"{path}: not JSON: {error}")
    return derive.validate(stats, path)


def build_report(stats: dict, title: Optional[str] = None, charts_dir: Optional[str] = None):
    """(html text, PNG files written) for one statistics document."""
    target = stats.get("workload") or stats.get("launch_file") or "run"
    config_name = ((stats.get("config") or {}).get("name")) or "?"
    title = title or f"scgpu report: {target} on {config_name}"
    result = verdict(stats)
    subtitle = (f'<span class="badge {result}">{result}</span>{esc(stats.get("message", ""))}'
                f' &middot; mode {esc(stats.get("mode", "?"))}')
    if stats.get("partial"):
        subtitle += (' &middot; <span class="warn" style="color:#1d2330">partial: the run stopped '
                     'early; statistics cover it up to the stop</span>')
    sink = ChartSink(charts_dir)
    sections = [s for s in (build(stats, sink) for build in SECTIONS) if s is not None]
    return page(title, subtitle, sections), sink.png_files


def write_report(stats_path: str, out_path: str, title: Optional[str] = None,
                 charts_dir: Optional[str] = None) -> List[str]:
    """Write the page; returns the PNG files written into charts_dir (if any)."""
    stats = load_stats(stats_path)
    text, pngs = build_report(stats, title, charts_dir)
    directory = os.path.dirname(os.path.abspath(out_path))
    if not os.path.isdir(directory):
        raise ToolError(f"{out_path}: the directory {directory} does not exist")
    write_atomically(out_path, text.encode("utf-8"))
    return pngs
