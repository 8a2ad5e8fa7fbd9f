"""The report's sections: each takes the statistics document and returns (id, title, html).

A section with nothing to show says why (functional mode has no timing statistics, an older
file has no per-SM counters, no file has samples yet) rather than disappearing, so a reader
knows the absence is real.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional

from ..flatten import components, config_value, natural_key
from ..table import config_columns
from ..units import format_bytes
from . import charts, derive
from .html import cards, chart, esc, note, number, table
from .svg import close, figure_to_png, figure_to_svg


class ChartSink:
    """Turns figures into inline SVG (and PNG files when asked), numbering them."""

    def __init__(self, png_directory: Optional[str]):
        self.png_directory = png_directory
        self.count = 0
        self.png_files: List[str] = []

    def __call__(self, fig, name: str, caption: str = "") -> str:
        if fig is None:
            return note("Nothing to draw: every value is zero.")
        self.count += 1
        svg = figure_to_svg(fig, salt=f"scgpu-report-{self.count}")
        path = figure_to_png(fig, self.png_directory, f"report_{name}")
        if path:
            self.png_files.append(path)
        close(fig)
        return chart(svg, caption)


def verdict(stats: Dict) -> str:
    if stats.get("passed"):
        return "PASSED"
    return {1: "FAILED", 2: "FAULT", 4: "DIVERGED", 130: "INTERRUPTED"}.get(stats.get("exit_code"), "FAILED")


def summary(stats: Dict, sink: ChartSink):
    m = derive.metrics(stats)
    launches = derive.launches(stats)
    cycles = sum(l["core_cycles"] for l in launches)
    simulated_ns = sum(l["simulated_ns"] for l in launches)
    warp_instructions = sum(l["warp_instructions"] for l in launches)
    items = [("simulated time", f"{simulated_ns / 1e3:,.2f} µs"), ("core cycles", number(cycles)),
             ("launches", number(len(launches))), ("warp instructions", number(warp_instructions))]
    if "gpu.ipc" in m:
        items.append(("IPC (warp instructions / cycle)", f"{m['gpu.ipc']:.3f}"))
    if "sm__warps_active.avg.pct_of_peak_sustained_active" in m:
        items.append(("achieved occupancy", f"{m['sm__warps_active.avg.pct_of_peak_sustained_active']:.1f} %"))
    if "dram__bytes.sum.per_second" in m:
        items.append(("DRAM bandwidth", f"{m['dram__bytes.sum.per_second'] / 1e9:,.2f} GB/s"))
    if "lts__t_sector_hit_rate.pct" in m:
        items.append(("L2 hit rate", f"{m['lts__t_sector_hit_rate.pct']:.1f} %"))
    body = cards(items)
    body += "<h3>Configuration</h3>" + table(["", ""], derive.config_summary(stats).items())
    options = stats.get("options") or {}
    if options:
        body += "<h3>Run options</h3>" + table(["option", "value"], sorted(options.items()))
    if stats.get("mode") == "functional":
        body += note("Functional mode: results only, no timing statistics (no cycles, stalls, "
                     "bandwidth); run in timing mode for those.")
    return "summary", "Summary", body


def launches_section(stats: Dict, sink: ChartSink, limit: int = 500):
    launches = derive.launches(stats)
    if not launches:
        return "launches", "Launches", note("No kernel launches in this file.")
    rows = [(l["index"], l["kernel"], _dims(l["grid"]), _dims(l["block"]),
             number(l["warp_instructions"]), number(l["thread_instructions"]),
             number(l["core_cycles"]), number(l["ipc"], 3), number(l["simulated_ns"] / 1e3, 2),
             number((l["wall_seconds"] or 0) * 1e3, 1))
            for l in launches[:limit]]
    body = table(["#", "kernel", "grid", "block", "warp instr", "thread instr", "core cycles",
                  "IPC", "sim time (µs)", "wall (ms)"], rows, numeric=range(4, 10), table_id="launches")
    if len(launches) > limit:
        body += note(f"{len(launches) - limit} more launches not listed.")
    fig = charts.launches_chart(launches)
    if fig is not None:
        body += sink(fig, "launches")
    return "launches", "Launches", body


def _dims(value) -> str:
    return "(" + ",".join(str(v) for v in value) + ")" if isinstance(value, list) else str(value or "")


def kernels_section(stats: Dict, sink: ChartSink):
    kernels = derive.kernels(stats)
    if not kernels:
        return "kernels", "Top kernels", note("No kernel launches in this file.")
    rows = [(k["kernel"], k["launches"], number(k["core_cycles"]), number(k["simulated_ns"] / 1e3, 2),
             number(k["share_pct"], 1), number(k["ipc"], 3)) for k in kernels[:20]]
    body = table(["kernel", "launches", "core cycles", "sim time (µs)", "share (%)", "IPC"], rows,
                 numeric=range(1, 6), table_id="kernels")
    body += sink(charts.kernels_chart(kernels), "kernels")
    return "kernels", "Top kernels", body


def stalls_section(stats: Dict, sink: ChartSink):
    breakdown = derive.stall_breakdown(stats)
    if not breakdown:
        return "stalls", "Stall reasons", note("No stall statistics in this file (functional mode?).")
    body = sink(charts.stalls_chart(breakdown), "stalls",
                "Each warp-scheduler cycle is in one state; 'selected' means a warp issued. "
                "long scoreboard: waiting for a memory result; wait: fixed-latency dependency; "
                "mio throttle: the memory pipe's queue is full.")
    body += table(["state", "% of scheduler cycles"],
                  [(k.replace("_", " "), number(v, 2)) for k, v in breakdown.items()], numeric=[1])
    return "stalls", "Stall reasons", body


def memory_section(stats: Dict, sink: ChartSink):
    m = derive.metrics(stats)
    config = stats.get("config") or {}
    peak = config_columns(config).get("config.dram_peak_GBps")
    items = []
    if "dram__bytes.sum" in m:
        items.append(("DRAM traffic", format_bytes(m["dram__bytes.sum"])))
    if "dram__bytes.sum.per_second" in m:
        items.append(("DRAM bandwidth", f"{m['dram__bytes.sum.per_second'] / 1e9:,.2f} GB/s"))
    if peak:
        items.append(("DRAM peak", f"{peak:,.1f} GB/s"))
    for key, label in (("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput (% of peak)"),
                       ("dram.row_buffer_hit_rate.pct", "DRAM row-buffer hit rate (%)"),
                       ("lts__t_sector_hit_rate.pct", "L2 sector hit rate (%)"),
                       ("l1tex__t_sector_hit_rate.pct", "L1 sector hit rate (%)"),
                       ("l1tex__t_sectors_per_request", "L1 sectors per request"),
                       ("xbar.utilization.pct", "crossbar utilisation (%)")):
        if key in m:
            items.append((label, f"{m[key]:.1f}"))
    if not items:
        return "memory", "DRAM and L2", note("No memory statistics in this file (functional mode?).")
    body = cards(items)
    channels = derive.per_dram_channel(stats)
    count = config_value(config, "dram.channels") or len(channels) or 1
    fig = charts.dram_chart(channels, peak / count if peak else None)
    body += "<h3>DRAM</h3>" + (sink(fig, "dram") if fig else note("No per-channel DRAM counters."))
    fig = charts.l2_chart(derive.per_l2_slice(stats))
    body += "<h3>L2</h3>" + (sink(fig, "l2") if fig else note("No per-slice L2 counters."))
    return "memory", "DRAM and L2", body


def sm_section(stats: Dict, sink: ChartSink):
    rows = derive.per_sm(stats)
    if not rows:
        return "sms", "Per-SM occupancy", note("This file has no per-SM counters "
                                               "(gpu.sm[N].active_warps_sum / active_cycles), "
                                               "so there is no per-SM heatmap.")
    body = sink(charts.sm_heatmap(rows), "sm_heatmap",
                "Occupancy is averaged over each SM's active cycles; an SM that got fewer blocks "
                "shows fewer active cycles.")
    return "sms", "Per-SM occupancy", body


def histograms_section(stats: Dict, sink: ChartSink):
    found = derive.histograms(stats)
    if not found:
        return None
    body = "".join(sink(charts.histogram_chart(name, h), f"histogram_{index}")
                   for index, (name, h) in enumerate(found.items()) if h.get("buckets"))
    return "histograms", "Histograms", body


def timeseries_section(stats: Dict, sink: ChartSink):
    rows = derive.samples(stats)
    if rows is None:
        return "timeseries", "Time series", note(
            "No time series: this statistics file has no 'samples' array. Run with "
            "`scgpu run ... --stats-interval N` (timing mode) to sample the counters every N core "
            "cycles; this section then plots them.")
    time_key = derive.sample_time_key(rows)
    fig, omitted = charts.timeseries_chart(rows, time_key)
    if fig is None:
        return "timeseries", "Time series", note(f"{len(rows)} samples, but no numeric values to plot.")
    body = sink(fig, "timeseries", f"{len(rows)} samples" + (f" over {time_key}" if time_key else ""))
    if omitted:
        body += note(f"{omitted} more quantities not plotted.")
    return "timeseries", "Time series", body


def outcome_section(stats: Dict, sink: ChartSink):
    parts = []
    fault = stats.get("fault")
    if isinstance(fault, dict):
        parts.append("<h3>Fault</h3>" + table(["", ""], [
            (key, fault.get(key)) for key in ("kind", "kernel", "error", "block", "warp", "thread",
                                              "lane", "pc", "instruction", "ptx_location",
                                              "source_location") if fault.get(key) not in (None, "")]))
        if fault.get("report"):
            parts.append(f"<pre>{esc(fault['report'])}</pre>")
    checks = stats.get("checks")
    if isinstance(checks, list) and checks:
        parts.append("<h3>Checks</h3>" + table(["buffer", "passed", "message"], [
            (c.get("buffer"), "yes" if c.get("passed") else "no", c.get("message", "")) for c in checks]))
    if not parts:
        return None
    return "outcome", "Fault and checks", "".join(parts)


def config_section(stats: Dict, sink: ChartSink):
    rows = derive.flat_config(stats.get("config") or {})
    body = f"<details><summary>{len(rows)} keys</summary>" + table(["key", "value"], rows) + "</details>"
    return "config", "Effective config", body


def counters_section(stats: Dict, sink: ChartSink, limit: int = 4000):
    counters = components(stats).get("counters") or {}
    if not counters:
        return "counters", "Counters", note("No counters in this file.")
    from ..flatten import flatten_stats

    flat = flatten_stats(stats)
    names = [n for n in flat if "[*]" in n or n in counters]
    per_instance = [n for n in names if "[" in n and "[*]" not in n]
    if len(names) > limit:
        names = [n for n in names if n not in set(per_instance)]
        extra = note(f"{len(per_instance)} per-instance counters are summarised by their [*] sums "
                     f"here; the JSON file has them all.")
    else:
        extra = ""
    names.sort(key=natural_key)
    rows = [(name, number(flat[name], 2)) for name in names]
    body = (f"<details><summary>{len(rows)} counters</summary>" + extra +
            table(["counter", "value"], rows, numeric=[1]) + "</details>")
    return "counters", "Counters", body


SECTIONS: List[Callable] = [summary, outcome_section, launches_section, kernels_section,
                            stalls_section, memory_section, sm_section, histograms_section,
                            timeseries_section, config_section, counters_section]
