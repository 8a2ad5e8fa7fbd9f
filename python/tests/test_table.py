"""Flattening statistics and building the table, on a small hand-made statistics document."""

from __future__ import annotations

import sqlite3

import pandas as pd

from scgpu_tools.flatten import flatten_stats, select_columns
from scgpu_tools.table import (SQLITE_MAX_COLUMNS, build_table, long_stats_table, run_rows,
                               sqlite_columns, write_sqlite)

STATS = {
    "passed": True, "exit_code": 0, "message": "ok",
    "launches": [
        {"kernel": "k1", "grid": [4, 1, 1], "block": [128, 1, 1], "core_cycles": 1000,
         "simulated_ns": 500.0, "warp_instructions": 1500, "thread_instructions": 48000,
         "wall_seconds": 0.01, "thread_instructions_per_second": 4.8e6},
        {"kernel": "k2", "grid": [1, 1, 1], "block": [64, 1, 1], "core_cycles": 200,
         "simulated_ns": 100.0, "warp_instructions": 100, "thread_instructions": 3200,
         "wall_seconds": 0.001, "thread_instructions_per_second": 3.2e6},
    ],
    "totals": {"launches": 2, "wall_seconds": 0.011},
    "config": {"name": "tiny", "sm": {"count": 2, "max_warps_per_sm": 64},
               "l2": {"slices": 2, "cache": {"size_bytes": 262144}},
               "dram": {"channels": 1, "standard": "hbm3", "bus_width_bits": 32,
                        "transfers_per_clock": 4},
               "clocks": {"core_clock_mhz": 1755, "dram_clock_mhz": 1000}},
    "stats": {"components": {
        "metrics": {"gpu.ipc": 1.33, "stall.wait.pct": 40.0, "stall.selected.pct": 60.0},
        "counters": {"gpu.sm[10].cycles": 5, "gpu.sm[2].cycles": 7, "gpu.sm[0].sched[1].issued": 3,
                     "gpu.sm[1].sched[0].issued": 4, "gpu.xbar.request_flits": 9},
        "histograms": {"gpu.lat": {"bucket_width": 10, "buckets": [1, 2], "samples": 3,
                                   "mean": 12.5, "max": 19}},
    }},
}


def test_flatten_keeps_names_adds_sums_and_orders_naturally():
    flat = flatten_stats(STATS)
    assert list(flat) == [
        "gpu.ipc", "stall.selected.pct", "stall.wait.pct",
        "gpu.lat.samples", "gpu.lat.mean", "gpu.lat.max",
        "gpu.sm[*].cycles", "gpu.sm[*].sched[*].issued",
        "gpu.sm[0].sched[1].issued", "gpu.sm[1].sched[0].issued", "gpu.sm[2].cycles",
        "gpu.sm[10].cycles", "gpu.xbar.request_flits"]
    assert flat["gpu.sm[*].cycles"] == 12
    assert flat["gpu.sm[*].sched[*].issued"] == 7
    assert flatten_stats(None) == {} and flatten_stats({"launches": []}) == {}


def test_one_row_per_launch_with_run_wide_statistics():
    meta = {"run_id": "r1", "point": 3, "workload": "w", "target": "w", "scale": None,
            "overrides": [["l2.cache.size_bytes", 65536]]}
    rows = run_rows(meta, {"status": "passed", "message": "ok", "exit_code": 0},
                    STATS, ["l2.cache.size_bytes", "sm.count"])
    assert len(rows) == 2
    first, second = rows
    assert (first["launch"], first["kernel"], second["launch"], second["kernel"]) == (0, "k1", 1, "k2")
    assert first["launch.ipc"] == 1.5 and second["launch.ipc"] == 0.5
    assert first["launch.grid"] == "4x1x1"
    assert first["total.core_cycles"] == 1200 and first["total.simulated_ns"] == 600.0
    # an override, and a parameter this point does not override (from the effective config)
    assert first["l2.cache.size_bytes"] == 65536 and first["sm.count"] == 2
    assert first["config.l2_total_bytes"] == 2 * 262144
    assert first["config.dram_peak_GBps"] == 1 * 32 / 8 * 4 * 1000 * 1e6 / 1e9
    assert first["gpu.ipc"] == second["gpu.ipc"] == 1.33


def test_a_run_without_statistics_still_has_a_row():
    meta = {"run_id": "r2", "point": 0, "workload": "w", "target": "w", "overrides": [["sm.count", 0]]}
    rows = run_rows(meta, {"status": "input_error", "message": "bad", "exit_code": 3}, None, ["sm.count"])
    assert len(rows) == 1
    assert rows[0]["status"] == "input_error" and rows[0]["launch"] is None and rows[0]["sm.count"] == 0
    frame, _ = build_table(rows, ["sm.count"])
    assert frame.loc[0, "status"] == "input_error"


def test_metric_selection_exact_names_and_globs():
    columns = list(flatten_stats(STATS))
    chosen, unmatched = select_columns(columns, ["stall.*.pct", "gpu.sm[*].cycles", "nothing.*"])
    assert chosen == ["stall.selected.pct", "stall.wait.pct", "gpu.sm[*].cycles"]
    assert unmatched == ["nothing.*"]
    # brackets are literal in globs
    chosen, _ = select_columns(columns, ["gpu.sm[1*"])
    assert chosen == ["gpu.sm[1].sched[0].issued", "gpu.sm[10].cycles"]


def test_table_columns_in_documented_order_and_integers_kept():
    meta = {"run_id": "r1", "point": 0, "workload": "w", "target": "w", "overrides": []}
    rows = run_rows(meta, {"status": "passed"}, STATS, [])
    rows += run_rows({**meta, "run_id": "r2"}, {"status": "input_error"}, None, [])
    frame, unmatched = build_table(rows, [], metrics=["gpu.ipc"])
    assert unmatched == []
    columns = list(frame.columns)
    assert columns[:8] == ["run_id", "point", "workload", "target", "scale", "launch", "kernel", "status"]
    assert columns[-1] == "gpu.ipc" and "stall.wait.pct" not in columns
    assert str(frame["launch"].dtype) == "Int64"     # 0, 1 and a gap, not 0.0, 1.0, NaN


def test_sqlite_keeps_every_value_despite_the_column_limit(tmp_path):
    wide = pd.DataFrame([{"run_id": "r", **{f"gpu.sm[{i}].cycles": i for i in range(SQLITE_MAX_COLUMNS + 50)},
                          "gpu.sm[*].cycles": 1}])
    kept, dropped = sqlite_columns(wide)
    assert list(kept.columns) == ["run_id", "gpu.sm[*].cycles"] and len(dropped) == SQLITE_MAX_COLUMNS + 50
    path = tmp_path / "r.sqlite"
    long = long_stats_table({"r": STATS})
    assert write_sqlite(wide, long, {"k": "v"}, str(path)) == dropped
    with sqlite3.connect(path) as connection:
        assert connection.execute("select count(*) from stats").fetchone()[0] == len(flatten_stats(STATS))
        notes = dict(connection.execute("select key, value from meta").fetchall())
        assert "results_columns_left_out" in notes and notes["k"] == "v"
