"""The results table: one row per point x workload x kernel launch.

Column groups, in this order:

* identity and outcome: `run_id`, `point`, `workload`, `target`, `scale`, `launch`, `kernel`,
  `status`, `message`, `exit_code`, `wall_s`, `host`;
* parameters: every config key the sweep overrides (a point that does not override a key gets the
  base config's value, read from the effective config the simulator reports);
* `launch.*`: this launch (grid, block, cycles, simulated time, instructions, IPC);
* `total.*`: the whole run (all launches);
* `config.*`: a few effective config values that plots use as costs (SM count, L2 size, DRAM
  channels and peak bandwidth);
* statistics (flatten.py): run-wide, so equal on every launch row of a run.

A run without launches (an input error) still gets one row, so that failures are visible.
"""

from __future__ import annotations

import os
import re
import sqlite3
import tempfile
from typing import Dict, List, Optional, Sequence

import pandas as pd

from .flatten import config_value, flatten_stats, select_columns
from .store import FILE_MODE

ID_COLUMNS = ["run_id", "point", "workload", "target", "scale", "launch", "kernel", "status",
              "message", "exit_code", "wall_s", "host"]

# Columns that depend on the host's speed or name, not on the simulation: left out when tables
# from two engines or two machines are compared.
WALL_CLOCK_COLUMNS = ["wall_s", "host", "launch.wall_seconds", "launch.thread_instructions_per_second",
                      "total.wall_seconds", "total.thread_instructions_per_second"]

LAUNCH_FIELDS = ["core_cycles", "simulated_ns", "warp_instructions", "thread_instructions",
                 "wall_seconds", "thread_instructions_per_second"]

CONFIG_FIELDS = ["name", "sm.count", "sm.max_warps_per_sm", "clocks.core_clock_mhz",
                 "clocks.dram_clock_mhz", "l2.slices", "l2.cache.size_bytes", "dram.standard",
                 "dram.channels"]

SQLITE_MAX_COLUMNS = 2000   # SQLite's default SQLITE_MAX_COLUMN


def _shape(value) -> Optional[str]:
    if isinstance(value, list):
        return "x".join(str(part) for part in value)
    return None


def config_columns(config: Optional[dict]) -> Dict[str, object]:
    """Effective-config values used as costs, plus two derived totals."""
    columns = {f"config.{key}": config_value(config, key) for key in CONFIG_FIELDS}
    slices, slice_bytes = config_value(config, "l2.slices"), config_value(config, "l2.cache.size_bytes")
    columns["config.l2_total_bytes"] = slices * slice_bytes if slices and slice_bytes else None
    channels = config_value(config, "dram.channels")
    width = config_value(config, "dram.bus_width_bits")
    transfers = config_value(config, "dram.transfers_per_clock")
    clock = config_value(config, "clocks.dram_clock_mhz")
    if channels and width and transfers and clock:
        # docs/config.md: channels x bus_width_bits / 8 x transfers_per_clock x dram_clock_mhz
        columns["config.dram_peak_GBps"] = channels * width / 8 * transfers * clock * 1e6 / 1e9
    else:
        columns["config.dram_peak_GBps"] = None
    return columns


def run_rows(meta: Dict, record: Dict, stats: Optional[Dict], parameters: Sequence[str]) -> List[Dict]:
    """Rows of one run. `meta` describes the run (point, workload, overrides); `record` is its
    outcome; `stats` its --stats-json document (None when the simulator wrote none)."""
    overrides = dict(meta.get("overrides", []))
    effective = (stats or {}).get("config")
    base = {
        "run_id": meta["run_id"], "point": meta["point"], "workload": meta["workload"],
        "target": meta["target"], "scale": meta.get("scale") or 1,
        "status": record.get("status"), "message": record.get("message", ""),
        "exit_code": record.get("exit_code"), "wall_s": record.get("wall_s"),
        "host": record.get("host"),
    }
    for key in parameters:
        base[key] = overrides[key] if key in overrides else config_value(effective, key)

    launches = [launch for launch in (stats or {}).get("launches", []) if isinstance(launch, dict)]
    totals = {
        "total.launches": len(launches),
        "total.core_cycles": sum(launch.get("core_cycles", 0) or 0 for launch in launches),
        "total.simulated_ns": sum(launch.get("simulated_ns", 0) or 0 for launch in launches),
        "total.warp_instructions": sum(launch.get("warp_instructions", 0) or 0 for launch in launches),
        "total.thread_instructions": sum(launch.get("thread_instructions", 0) or 0 for launch in launches),
    }
    totals["total.ipc"] = (totals["total.warp_instructions"] / totals["total.core_cycles"]
                           if totals["total.core_cycles"] else None)
    reported = (stats or {}).get("totals") or {}
    totals["total.wall_seconds"] = reported.get("wall_seconds")
    totals["total.thread_instructions_per_second"] = reported.get("thread_instructions_per_second")
    if not launches:
        for key in totals:
            totals[key] = None if stats is None else totals[key]

    shared = {**totals, **config_columns(effective), **flatten_stats(stats)}
    rows = []
    for index, launch in enumerate(launches or [None]):
        row = dict(base)
        if launch is None:
            row.update({"launch": None, "kernel": None})
        else:
            row.update({"launch": index, "kernel": launch.get("kernel")})
            row["launch.grid"] = _shape(launch.get("grid"))
            row["launch.block"] = _shape(launch.get("block"))
            for field in LAUNCH_FIELDS:
                row[f"launch.{field}"] = launch.get(field)
            cycles = launch.get("core_cycles")
            row["launch.ipc"] = launch.get("warp_instructions", 0) / cycles if cycles else None
        row.update(shared)
        rows.append(row)
    return rows


def build_table(rows: List[Dict], parameters: Sequence[str],
                metrics: Optional[List[str]] = None) -> "tuple[pd.DataFrame, List[str]]":
    """DataFrame of all rows with columns in the documented order; and unmatched metric names.

    `metrics` (the sweep's `metrics:`) limits the statistics columns; identity, parameter,
    launch, total and config columns are always kept.
    """
    order: Dict[str, None] = dict.fromkeys(ID_COLUMNS)
    order.update(dict.fromkeys(parameters))
    fixed_prefixes = ("launch.", "total.", "config.")
    for prefix in fixed_prefixes:
        for row in rows:
            order.update({key: None for key in row if key.startswith(prefix) and key not in order})
    statistic_columns: Dict[str, None] = {}
    for row in rows:
        statistic_columns.update({key: None for key in row if key not in order})
    unmatched: List[str] = []
    chosen = list(statistic_columns)
    if metrics is not None:
        chosen, unmatched = select_columns(chosen, metrics)
    columns = list(order) + chosen
    frame = pd.DataFrame(rows, columns=columns)
    _restore_integers(frame, rows)
    return frame, unmatched


def _restore_integers(frame: pd.DataFrame, rows: List[Dict]) -> None:
    """A column of integers with gaps (a failed run has no launch) becomes float in pandas and
    reads `3.0` in the CSV; keep it integer (pandas' nullable Int64) when every value is one."""
    for name in frame.columns:
        if frame[name].dtype != "float64" or not frame[name].isna().any():
            continue
        values = [row.get(name) for row in rows]
        present = [value for value in values if value is not None]
        if present and all(isinstance(value, int) and not isinstance(value, bool) for value in present):
            frame[name] = frame[name].astype("Int64")


def write_csv(frame: pd.DataFrame, path: str) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".results.", suffix=".csv.tmp", dir=directory)
    os.close(handle)
    try:
        frame.to_csv(temporary, index=False)
        os.chmod(temporary, FILE_MODE)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def sqlite_columns(frame: pd.DataFrame) -> "tuple[pd.DataFrame, List[str]]":
    """The frame cut to SQLite's column limit: per-instance counters go first (their `[*]` sums
    stay, and every value is in the `stats` table anyway)."""
    if frame.shape[1] <= SQLITE_MAX_COLUMNS:
        return frame, []
    per_instance = [name for name in frame.columns if re.search(r"\[\d+\]", name)]
    kept = frame.drop(columns=per_instance)
    dropped = list(per_instance)
    if kept.shape[1] > SQLITE_MAX_COLUMNS:
        extra = list(kept.columns[SQLITE_MAX_COLUMNS:])
        kept = kept.drop(columns=extra)
        dropped += extra
    return kept, dropped


def write_sqlite(frame: pd.DataFrame, long_stats: pd.DataFrame, meta: Dict[str, str], path: str) -> List[str]:
    """Write tables `results` (wide), `stats` (run_id, name, value: every statistic) and `meta`;
    returns the columns left out of `results` for SQLite's column limit."""
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".results.", suffix=".sqlite.tmp", dir=directory)
    os.close(handle)
    try:
        wide, dropped = sqlite_columns(frame)
        with sqlite3.connect(temporary) as connection:
            wide.to_sql("results", connection, index=False, if_exists="replace")
            long_stats.to_sql("stats", connection, index=False, if_exists="replace")
            connection.execute("CREATE INDEX stats_by_name ON stats(name, run_id)")
            notes = dict(meta)
            if dropped:
                notes["results_columns_left_out"] = (
                    f"{len(dropped)} per-instance columns (over SQLite's {SQLITE_MAX_COLUMNS}-"
                    f"column limit); query them from the stats table")
            pd.DataFrame(sorted(notes.items()), columns=["key", "value"]).to_sql(
                "meta", connection, index=False, if_exists="replace")
        connection.close()
        os.chmod(temporary, FILE_MODE)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return dropped


def long_stats_table(stats_by_run: Dict[str, Optional[Dict]]) -> pd.DataFrame:
    """Every statistic of every run, one row each: (run_id, name, value)."""
    run_ids, names, values = [], [], []
    for run_id, stats in stats_by_run.items():
        for name, value in flatten_stats(stats).items():
            run_ids.append(run_id)
            names.append(name)
            values.append(float(value))
    return pd.DataFrame({"run_id": run_ids, "name": names, "value": values})


def load_results(directory: str) -> pd.DataFrame:
    """The table a sweep wrote (results.csv)."""
    return pd.read_csv(os.path.join(directory, "results.csv"), low_memory=False, float_precision="round_trip")
