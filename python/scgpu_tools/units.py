"""Human names and units for config keys and statistics, for chart titles, axes and tables.

Config keys carry their unit in their name (`size_bytes`, `clock_mhz`, `latency_cycles`); the
few that matter most in sweeps get a proper name. Statistics get a title, a unit and the factor
that converts the raw value into that unit (nanoseconds are shown as microseconds, bytes per
second as GB/s).
"""

from __future__ import annotations

import math
import re
from typing import Tuple

PARAMETERS = {
    "sm.count": ("SM count", "SMs"),
    "config.sm.count": ("SM count", "SMs"),
    "l2.cache.size_bytes": ("L2 size per slice", "bytes"),
    "l2.slices": ("L2 slices", ""),
    "config.l2_total_bytes": ("total L2 size", "bytes"),
    "dram.channels": ("DRAM channels", ""),
    "config.dram.channels": ("DRAM channels", ""),
    "dram.standard": ("DRAM standard", ""),
    "config.dram_peak_GBps": ("peak DRAM bandwidth", "GB/s"),
    "clocks.core_clock_mhz": ("core clock", "MHz"),
    "clocks.dram_clock_mhz": ("DRAM clock", "MHz"),
    "clocks.icnt_clock_mhz": ("interconnect clock", "MHz"),
    "sm.scheduler_policy": ("warp scheduler", ""),
    "sm.l1.size_bytes": ("L1 size", "bytes"),
    "sm.max_warps_per_sm": ("warps per SM", ""),
}

# Short forms for point labels ("L2 64 KiB, 2 ch").
SHORT = {
    "sm.count": "SMs", "l2.cache.size_bytes": "L2", "dram.channels": "ch", "dram.standard": "",
    "clocks.core_clock_mhz": "core", "clocks.dram_clock_mhz": "dram", "sm.scheduler_policy": "",
    "l2.slices": "slices", "sm.l1.size_bytes": "L1",
}

METRICS = {
    "total.simulated_ns": ("Simulated time", "µs", 1e-3),
    "gpu.simulated_ns": ("Simulated time", "µs", 1e-3),
    "launch.simulated_ns": ("Simulated time of the launch", "µs", 1e-3),
    "total.core_cycles": ("Core cycles", "cycles", 1.0),
    "launch.core_cycles": ("Core cycles of the launch", "cycles", 1.0),
    "gpu.cycles": ("GPU cycles", "cycles", 1.0),
    "gpu.ipc": ("IPC", "warp instructions per cycle", 1.0),
    "total.ipc": ("IPC", "warp instructions per cycle", 1.0),
    "launch.ipc": ("IPC of the launch", "warp instructions per cycle", 1.0),
    "sm__inst_executed.avg.per_cycle_active": ("IPC per active SM", "warp instructions per cycle", 1.0),
    "dram__bytes.sum": ("DRAM traffic", "MiB", 1.0 / 2**20),
    "dram__bytes.sum.per_second": ("DRAM bandwidth", "GB/s", 1e-9),
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": ("DRAM throughput", "% of peak", 1.0),
    "dram.row_buffer_hit_rate.pct": ("DRAM row-buffer hit rate", "%", 1.0),
    "lts__t_sector_hit_rate.pct": ("L2 hit rate", "% of sectors", 1.0),
    "l1tex__t_sector_hit_rate.pct": ("L1 hit rate", "% of sectors", 1.0),
    "l1tex__t_sectors_per_request": ("L1 sectors per request", "sectors", 1.0),
    "sm__warps_active.avg.pct_of_peak_sustained_active": ("Achieved occupancy", "% of max warps", 1.0),
    "xbar.utilization.pct": ("Crossbar utilisation", "%", 1.0),
    "total.warp_instructions": ("Warp instructions", "instructions", 1.0),
    "speedup": ("Speedup over the baseline", "x", 1.0),
}

STALL_RE = re.compile(r"^stall\.(.+)\.pct$")


def _words(text: str) -> str:
    return text.replace("_", " ")


def parameter_name(key: str) -> Tuple[str, str]:
    """(name, unit) of a config key or config.* column."""
    if key in PARAMETERS:
        return PARAMETERS[key]
    last = key.split(".")[-1]
    for suffix, unit in (("_bytes", "bytes"), ("_mhz", "MHz"), ("_cycles", "cycles"),
                         ("_ns", "ns"), ("_entries", "entries")):
        if last.endswith(suffix):
            return f"{key[: -len(suffix)]}", unit
    return key, ""


def parameter_axis_label(key: str) -> str:
    name, unit = parameter_name(key)
    # Bytes are printed with their own unit on each tick (64 KiB), so the label leaves it out.
    return f"{name} ({unit})" if unit and unit != "bytes" else name


def format_bytes(value: float) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(value) >= size:
            scaled = value / size
            return f"{scaled:.0f} {unit}" if scaled == int(scaled) else f"{scaled:.1f} {unit}"
    return f"{value:.0f} B"


def format_parameter(key: str, value) -> str:
    """A parameter value as a reader wants it: 65536 bytes -> '64 KiB'."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    _, unit = parameter_name(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if unit == "bytes":
            return format_bytes(value)
        if float(value) == int(value):
            return f"{int(value)}"
        return f"{value:g}"
    return str(value)


def short_parameter(key: str, value) -> str:
    """'L2 64 KiB', '2 ch', 'gddr6': a compact form for point labels."""
    short = SHORT.get(key, key.split(".")[-1])
    text = format_parameter(key, value)
    if not short:
        return text
    if short in ("ch", "slices", "SMs"):
        return f"{text} {short}"
    return f"{short} {text}"


def metric_info(name: str) -> Tuple[str, str, float]:
    """(title, unit, factor): the chart shows value x factor in unit."""
    if name in METRICS:
        return METRICS[name]
    stall = STALL_RE.match(name)
    if stall:
        return f"Stall: {_words(stall.group(1))}", "% of scheduler cycles", 1.0
    if name.endswith(".pct"):
        return name[:-4], "%", 1.0
    if name.endswith("_ns"):
        return name, "µs", 1e-3
    if name.endswith("per_second"):
        return name, "per second", 1.0
    return name, "", 1.0


def metric_axis_label(name: str) -> str:
    title, unit, _ = metric_info(name)
    return f"{title} ({unit})" if unit else title


def stall_reason(name: str) -> str:
    match = STALL_RE.match(name)
    return _words(match.group(1)) if match else name
