"""Numbers the report shows, derived from one --stats-json document.

Kept apart from the HTML and the charts so that each derivation can be checked on its own: the
per-SM occupancy, per-channel DRAM traffic, per-slice L2 hit rates and the per-kernel summary.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Dict, List, Optional

from ..errors import ToolError
from ..flatten import components, config_value, natural_key

SM_COUNTER_RE = re.compile(r"^gpu\.sm\[(\d+)\]\.(active_warps_sum|active_cycles|cycles|warp_instructions)$")
DRAM_COUNTER_RE = re.compile(r"^gpu\.dram\[(\d+)\]\.(reads|writes|row_hits|row_misses|row_conflicts|busy_cycles)$")
L2_COUNTER_RE = re.compile(r"^gpu\.l2\[(\d+)\]\.(hits|misses|reads|writes)$")

# Keys that name the time axis of a sample, most precise first.
SAMPLE_TIME_KEYS = ("core_cycles", "cycle", "cycles", "gpu.cycles", "simulated_ns", "time_ns", "t")


def validate(stats, path: str) -> Dict:
    if not isinstance(stats, dict):
        raise ToolError(f"{path}: not a statistics file (expected a JSON object from "
                        f"`scgpu run --stats-json`)")
    if "launches" not in stats and "stats" not in stats:
        raise ToolError(f"{path}: no 'launches' and no 'stats': not written by `scgpu run --stats-json`")
    return stats


def metrics(stats: Dict) -> Dict[str, float]:
    found = components(stats).get("metrics")
    return dict(found) if isinstance(found, dict) else {}


def counters(stats: Dict) -> Dict[str, float]:
    found = components(stats).get("counters")
    return dict(found) if isinstance(found, dict) else {}


def launches(stats: Dict) -> List[Dict]:
    rows = []
    for index, launch in enumerate(stats.get("launches") or []):
        if not isinstance(launch, dict):
            continue
        cycles = launch.get("core_cycles") or 0
        rows.append({
            "index": index, "kernel": launch.get("kernel", "?"),
            "grid": launch.get("grid"), "block": launch.get("block"),
            "warp_instructions": launch.get("warp_instructions") or 0,
            "thread_instructions": launch.get("thread_instructions") or 0,
            "core_cycles": cycles, "ipc": (launch.get("warp_instructions") or 0) / cycles if cycles else None,
            "simulated_ns": launch.get("simulated_ns") or 0.0,
            "wall_seconds": launch.get("wall_seconds"),
        })
    return rows


def kernels(stats: Dict) -> List[Dict]:
    """Launches grouped by kernel name, most simulated time first."""
    groups: "OrderedDict[str, Dict]" = OrderedDict()
    for launch in launches(stats):
        group = groups.setdefault(launch["kernel"], {"kernel": launch["kernel"], "launches": 0,
                                                     "core_cycles": 0, "simulated_ns": 0.0,
                                                     "warp_instructions": 0})
        group["launches"] += 1
        group["core_cycles"] += launch["core_cycles"]
        group["simulated_ns"] += launch["simulated_ns"]
        group["warp_instructions"] += launch["warp_instructions"]
    total = sum(group["simulated_ns"] for group in groups.values()) or 1.0
    for group in groups.values():
        group["share_pct"] = 100.0 * group["simulated_ns"] / total
        group["ipc"] = group["warp_instructions"] / group["core_cycles"] if group["core_cycles"] else None
    return sorted(groups.values(), key=lambda g: -g["simulated_ns"])


def _per_instance(pattern: re.Pattern, values: Dict[str, float]) -> Dict[int, Dict[str, float]]:
    instances: Dict[int, Dict[str, float]] = {}
    for name, value in values.items():
        match = pattern.match(name)
        if match:
            instances.setdefault(int(match.group(1)), {})[match.group(2)] = value
    return dict(sorted(instances.items()))


def per_sm(stats: Dict) -> List[Dict]:
    """Per SM: achieved occupancy (% of max warps, over its active cycles), active cycles (% of
    the GPU's cycles) and IPC (warp instructions per GPU cycle). Empty without per-SM counters."""
    max_warps = config_value(stats.get("config"), "sm.max_warps_per_sm") or 0
    gpu_cycles = metrics(stats).get("gpu.cycles") or sum(l["core_cycles"] for l in launches(stats))
    rows = []
    for sm, values in _per_instance(SM_COUNTER_RE, counters(stats)).items():
        active = values.get("active_cycles", 0)
        rows.append({
            "sm": sm,
            "occupancy_pct": (100.0 * values.get("active_warps_sum", 0) / active / max_warps
                              if active and max_warps else 0.0),
            "active_pct": 100.0 * active / gpu_cycles if gpu_cycles else 0.0,
            "ipc": values.get("warp_instructions", 0) / gpu_cycles if gpu_cycles else 0.0,
        })
    return rows


def per_dram_channel(stats: Dict) -> List[Dict]:
    """Per channel: bytes moved, bandwidth over the run, row-buffer hit rate."""
    access = config_value(stats.get("config"), "dram.access_bytes") or 32
    seconds = (metrics(stats).get("gpu.simulated_ns") or
               sum(l["simulated_ns"] for l in launches(stats))) * 1e-9
    rows = []
    for channel, values in _per_instance(DRAM_COUNTER_RE, counters(stats)).items():
        moved = (values.get("reads", 0) + values.get("writes", 0)) * access
        rows_total = values.get("row_hits", 0) + values.get("row_misses", 0) + values.get("row_conflicts", 0)
        rows.append({
            "channel": channel, "bytes": moved,
            "GBps": moved / seconds / 1e9 if seconds else 0.0,
            "row_hit_pct": 100.0 * values.get("row_hits", 0) / rows_total if rows_total else None,
        })
    return rows


def per_l2_slice(stats: Dict) -> List[Dict]:
    """Per slice: sector hit rate and requests."""
    rows = []
    for slice_index, values in _per_instance(L2_COUNTER_RE, counters(stats)).items():
        lookups = values.get("hits", 0) + values.get("misses", 0)
        rows.append({
            "slice": slice_index,
            "hit_pct": 100.0 * values.get("hits", 0) / lookups if lookups else None,
            "requests": values.get("reads", 0) + values.get("writes", 0),
        })
    return rows


def stall_breakdown(stats: Dict) -> Dict[str, float]:
    """Share of scheduler cycles per state (%), from the stall.*.pct metrics, or from the
    per-scheduler counters when the metrics are missing."""
    found = {name[len("stall."):-len(".pct")]: value for name, value in metrics(stats).items()
             if name.startswith("stall.") and name.endswith(".pct")}
    if found:
        return dict(sorted(found.items(), key=lambda item: -item[1]))
    totals: Dict[str, float] = {}
    for name, value in counters(stats).items():
        match = re.match(r"^gpu\.sm\[\d+\]\.sched\[\d+\]\.stall\.(\w+)$", name)
        if match:
            totals[match.group(1)] = totals.get(match.group(1), 0) + value
    whole = sum(totals.values())
    if not whole:
        return {}
    return dict(sorted(((k, 100.0 * v / whole) for k, v in totals.items()), key=lambda item: -item[1]))


def histograms(stats: Dict) -> Dict[str, Dict]:
    found = components(stats).get("histograms")
    return {name: value for name, value in sorted((found or {}).items())
            if isinstance(value, dict) and isinstance(value.get("buckets"), list)}


def samples(stats: Dict) -> Optional[List[Dict]]:
    """The time series (a `samples` array), flattened; None when the file has none."""
    raw = stats.get("samples")
    if not isinstance(raw, list) or not raw:
        return None
    rows = []
    for sample in raw:
        if isinstance(sample, dict):
            flat: Dict[str, float] = {}
            _flatten_into(sample, "", flat)
            rows.append(flat)
    return rows or None


def _flatten_into(value, name: str, out: Dict[str, float]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten_into(inner, f"{name}.{key}" if name else str(key), out)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        out[name] = value


def sample_time_key(rows: List[Dict]) -> Optional[str]:
    for key in SAMPLE_TIME_KEYS:
        if all(key in row for row in rows):
            return key
    return None


def config_summary(stats: Dict) -> "OrderedDict[str, str]":
    config = stats.get("config") or {}
    from ..table import config_columns
    from ..units import format_bytes

    derived = config_columns(config)
    summary: "OrderedDict[str, str]" = OrderedDict()

    def put(label, value):
        if value is not None:
            summary[label] = str(value)

    put("name", config_value(config, "name"))
    put("source", stats.get("config_source"))
    put("SMs", config_value(config, "sm.count"))
    put("core clock", f"{config_value(config, 'clocks.core_clock_mhz')} MHz")
    put("max warps per SM", config_value(config, "sm.max_warps_per_sm"))
    l1 = config_value(config, "sm.l1.size_bytes")
    put("L1 per SM", format_bytes(l1) if l1 is not None else None)
    slices, slice_bytes = config_value(config, "l2.slices"), config_value(config, "l2.cache.size_bytes")
    if slices and slice_bytes:
        put("L2", f"{slices} x {format_bytes(slice_bytes)} = {format_bytes(slices * slice_bytes)}")
    put("DRAM", f"{config_value(config, 'dram.channels')} x {config_value(config, 'dram.standard')} "
                f"at {config_value(config, 'clocks.dram_clock_mhz')} MHz")
    if derived.get("config.dram_peak_GBps"):
        put("DRAM peak", f"{derived['config.dram_peak_GBps']:.1f} GB/s")
    return summary


def flat_config(config, prefix: str = "") -> List[tuple]:
    rows = []
    if isinstance(config, dict):
        for key in sorted(config, key=natural_key):
            rows.extend(flat_config(config[key], f"{prefix}{key}."))
    else:
        rows.append((prefix.rstrip("."), config))
    return rows
