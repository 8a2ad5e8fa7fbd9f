"""Sweeps on this machine with the real simulator: tables, failures as rows, resuming, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time

import pandas as pd

from conftest import PYTHON, REPOSITORY, cli, write
from scgpu_tools.table import WALL_CLOCK_COLUMNS


def test_the_tables_hold_every_point_workload_and_launch(example_sweep):
    out, _, completed = example_sweep
    # failures are data: the sweep itself succeeded
    assert completed.returncode == 0, completed.stderr
    table = pd.read_csv(out / "results.csv", float_precision="round_trip")
    runs = table.drop_duplicates("run_id")
    assert len(runs) == 6 * 3
    # reduce_tree launches twice, so its passing runs have two rows each
    launches = table[table["status"] == "passed"].groupby("run_id").size()
    by_workload = table[table["status"] == "passed"].drop_duplicates("run_id").set_index("run_id")["workload"]
    assert {by_workload[r]: n for r, n in launches.items()} == {"saxpy": 1, "reduce_tree": 2}
    # passed: 4 saxpy + 4 x 2 reduce_tree; 4 failed checks; 3 timeouts (one partial launch each);
    # 3 input errors (no launch, one row each)
    assert len(table) == 4 + 8 + 4 + 3 + 3
    # every override is a column, every statistic is a column
    for column in ("sm.count", "l2.cache.size_bytes", "dram.channels", "limits.cycles_per_launch",
                   "launch.core_cycles", "total.simulated_ns", "gpu.ipc", "stall.long_scoreboard.pct",
                   "gpu.sm[0].cycles", "gpu.sm[*].cycles", "config.dram.channels"):
        assert column in table.columns, column


def test_failures_are_rows_with_status_and_message(example_sweep):
    out, sweep_file, completed = example_sweep
    # the progress output points at the value the simulator refused
    assert "--set 'sm.count=0': error:" in completed.stderr
    assert f"(written at {sweep_file}:9:16)" in completed.stderr
    runs = pd.read_csv(out / "results.csv", float_precision="round_trip").drop_duplicates("run_id")
    status = {(row.point, row.workload): row.status for row in runs.itertuples()}
    for point in range(4):
        assert status[(point, "saxpy")] == "passed"
        assert status[(point, "reduce_tree")] == "passed"
        assert status[(point, "add_one_bad")] == "check_failed"
    assert status[(4, "saxpy")] == status[(4, "reduce_tree")] == status[(4, "add_one_bad")] == "timeout"
    assert status[(5, "saxpy")] == status[(5, "add_one_bad")] == "input_error"
    messages = runs.set_index(["point", "workload"])["message"]
    assert "limits.cycles_per_launch" in messages[(4, "saxpy")]
    assert "sm.count" in messages[(5, "saxpy")]
    assert "differ" in messages[(0, "add_one_bad")]
    # the input error has no launch, but still its parameters
    row = runs[(runs["point"] == 5) & (runs["workload"] == "saxpy")].iloc[0]
    assert pd.isna(row["launch"]) and row["sm.count"] == 0 and row["exit_code"] == 3


def test_parameters_and_statistics_are_those_of_the_run(example_sweep):
    out, _, _ = example_sweep
    runs = pd.read_csv(out / "results.csv", float_precision="round_trip").drop_duplicates("run_id")
    for _, run in runs[runs["status"] == "passed"].iterrows():
        with open(out / "runs" / f"{run['run_id']}.stats.json") as stream:
            stats = json.load(stream)
        assert stats["config"]["l2"]["cache"]["size_bytes"] == run["l2.cache.size_bytes"]
        assert stats["config"]["dram"]["channels"] == run["dram.channels"]
        assert stats["stats"]["components"]["metrics"]["gpu.ipc"] == run["gpu.ipc"]
        assert sum(l["core_cycles"] for l in stats["launches"]) == run["total.core_cycles"]
    # more DRAM channels make the memory-bound saxpy faster
    saxpy = runs[(runs["workload"] == "saxpy") & (runs["status"] == "passed")]
    one = saxpy[saxpy["dram.channels"] == 1]["total.simulated_ns"].max()
    two = saxpy[saxpy["dram.channels"] == 2]["total.simulated_ns"].min()
    assert two < one


def test_run_files_and_sqlite(example_sweep):
    out, _, _ = example_sweep
    table = pd.read_csv(out / "results.csv", float_precision="round_trip")
    records = sorted(p.name for p in (out / "runs").iterdir())
    ids = sorted(table["run_id"].unique())
    assert [n for n in records if not n.endswith(".stats.json")] == [f"{i}.json" for i in ids]
    # the input errors wrote no statistics
    assert len([n for n in records if n.endswith(".stats.json")]) == len(ids) - 3
    record = json.loads((out / "runs" / f"{ids[0]}.json").read_text())
    assert record["command"][1] == "run" and "--stats-json" not in record["command"]
    with sqlite3.connect(out / "results.sqlite") as connection:
        assert connection.execute("select count(*) from results").fetchone()[0] == len(table)
        statuses = dict(connection.execute("select status, count(distinct run_id) from results group by status"))
        assert statuses == {"passed": 8, "check_failed": 4, "timeout": 3, "input_error": 3}
        assert connection.execute("select count(distinct run_id) from stats").fetchone()[0] == len(ids) - 3
        value = connection.execute(
            "select value from stats where name = 'gpu.ipc' and run_id = ?", (ids[0],)).fetchone()
        assert value is None or value[0] > 0
    sweep = json.loads((out / "sweep.json").read_text())
    assert sweep["swept"] == ["sm.count", "l2.cache.size_bytes", "dram.channels", "limits.cycles_per_launch"]


def test_resume_runs_only_what_is_missing(tmp_path, counting_scgpu):
    scgpu, runs = counting_scgpu
    sweep = write(tmp_path / "s.yaml", """
        set: {sm.count: 2}
        grid: {dram.channels: [1, 2], l2.cache.size_bytes: [65536, 262144]}
        workloads: [saxpy, vector_add]
        """)
    out = tmp_path / "out"
    cli("sweep", sweep, "--out", out, "-q", scgpu=scgpu, check=True)
    assert runs() == 8
    first = pd.read_csv(out / "results.csv", float_precision="round_trip")
    # everything finished: nothing runs, the table is the same
    cli("sweep", sweep, "--out", out, "-q", scgpu=scgpu, check=True)
    assert runs() == 8
    pd.testing.assert_frame_equal(first, pd.read_csv(out / "results.csv", float_precision="round_trip"))
    # a crash that lost two records: exactly those two run again
    lost = sorted(first["run_id"].unique())[:2]
    for run_id in lost:
        os.unlink(out / "runs" / f"{run_id}.json")
    cli("sweep", sweep, "--out", out, "-q", scgpu=scgpu, check=True)
    assert runs() == 10
    again = pd.read_csv(out / "results.csv", float_precision="round_trip")
    pd.testing.assert_frame_equal(first.drop(columns=WALL_CLOCK_COLUMNS), again.drop(columns=WALL_CLOCK_COLUMNS))
    # a new grid value: only its points run (2 channels values x 1 new size x 2 workloads)
    sweep.write_text(sweep.read_text().replace("262144]", "262144, 1048576]"))
    cli("sweep", sweep, "--out", out, "-q", scgpu=scgpu, check=True)
    assert runs() == 14
    assert pd.read_csv(out / "results.csv", float_precision="round_trip")["run_id"].nunique() == 12


def test_dry_run_runs_nothing(tmp_path, counting_scgpu):
    scgpu, runs = counting_scgpu
    sweep = write(tmp_path / "s.yaml", """
        grid: {dram.channels: [1, 2]}
        zip: [{dram.standard: [hbm3, gddr6], clocks.dram_clock_mhz: [1309.5, 1750]}]
        workloads: [saxpy]
        """)
    completed = cli("sweep", sweep, "--dry-run", scgpu=scgpu, check=True)
    assert runs() == 0
    assert "4 points x 1 workloads = 4 runs" in completed.stdout
    assert "point 3: dram.channels=2 dram.standard=gddr6 clocks.dram_clock_mhz=1750" in completed.stdout


def test_a_sweep_file_error_stops_before_running(tmp_path, counting_scgpu):
    scgpu, runs = counting_scgpu
    sweep = write(tmp_path / "s.yaml", """
        grid: {dram.channels: [1, 2]}
        workloads: [saxpy, sxapy]
        """)
    completed = cli("sweep", sweep, "--out", tmp_path / "out", scgpu=scgpu)
    assert completed.returncode == 3
    assert f"{sweep}:2:20: error: unknown workload 'sxapy'; did you mean 'saxpy'?" in completed.stderr
    assert runs() == 0


def test_the_simulators_timeout_is_a_timeout_row(tmp_path, scgpu):
    sweep = write(tmp_path / "s.yaml", """
        set: {sm.count: 2}
        workloads: [{name: vector_add, scale: 16}]
        timeout_s: 0.05
        """)
    cli("sweep", sweep, "--out", tmp_path / "out", "-q", scgpu=scgpu, check=True)
    row = pd.read_csv(tmp_path / "out" / "results.csv", float_precision="round_trip").iloc[0]
    assert row["status"] == "timeout" and "--timeout" in row["message"]


def test_metrics_limit_the_statistics_columns(tmp_path, scgpu):
    sweep = write(tmp_path / "s.yaml", """
        set: {sm.count: 2}
        workloads: [saxpy]
        metrics: [gpu.ipc, "stall.*.pct", no.such.stat]
        """)
    completed = cli("sweep", sweep, "--out", tmp_path / "out", scgpu=scgpu, check=True)
    assert "metric 'no.such.stat' matches no statistic" in completed.stderr
    columns = list(pd.read_csv(tmp_path / "out" / "results.csv", float_precision="round_trip").columns)
    statistics = columns[columns.index("config.dram_peak_GBps") + 1:]
    assert statistics[0] == "gpu.ipc" and all(c.startswith("stall.") for c in statistics[1:])
    assert len(statistics) > 5


def test_ctrl_c_keeps_finished_runs_and_resume_completes(tmp_path, counting_scgpu):
    scgpu, runs = counting_scgpu
    sweep = write(tmp_path / "s.yaml", """
        set: {sm.count: 2}
        grid: {dram.channels: [1, 2, 4], l2.cache.size_bytes: [65536, 262144, 1048576]}
        workloads: [{name: vector_add, scale: 4}]
        """)
    out = tmp_path / "out"
    environment = dict(os.environ, SCGPU=scgpu)
    process = subprocess.Popen([PYTHON, "-m", "scgpu_tools", "sweep", str(sweep), "--out", str(out),
                                "--jobs", "2"], cwd=str(REPOSITORY), env=environment,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        records = [p for p in (out / "runs").glob("*.json") if not p.name.endswith(".stats.json")] \
            if (out / "runs").is_dir() else []
        if records:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)          # Ctrl-C reaches the sweep only (own session)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted; run the same command again to resume" in stderr
    table = pd.read_csv(out / "results.csv", float_precision="round_trip")
    assert table["run_id"].nunique() == 9                      # every point has a row
    statuses = set(table["status"])
    assert statuses <= {"passed", "interrupted", "not_run"} and "passed" in statuses
    assert statuses != {"passed"}
    passed_before = int((table["status"] == "passed").sum())
    started_before = runs()
    # no simulator is left running
    ids = set(table["run_id"])
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
        except OSError:
            continue
        assert not any(f"scgpu-{run_id}-" in command for run_id in ids), command

    cli("sweep", sweep, "--out", out, "-q", scgpu=scgpu, check=True)
    final = pd.read_csv(out / "results.csv", float_precision="round_trip")
    assert set(final["status"]) == {"passed"} and final["run_id"].nunique() == 9
    assert runs() - started_before == 9 - passed_before       # only the unfinished ones ran again


def test_a_result_that_arrives_twice_is_kept_once(tmp_path, scgpu, monkeypatch):
    """What a Dask retry of a finished task looks like to the results directory."""
    from scgpu_tools.engines import local
    from scgpu_tools.sweep import run_sweep

    original = local.LocalEngine.run

    def deliver_twice(self, tasks, on_outcome, on_error):
        def twice(outcome):
            on_outcome(outcome)
            outcome.message = "second delivery"
            on_outcome(outcome)
        original(self, tasks, twice, on_error)

    monkeypatch.setattr(local.LocalEngine, "run", deliver_twice)
    sweep = write(tmp_path / "s.yaml", "set: {sm.count: 2}\ngrid: {dram.channels: [1, 2]}\nworkloads: [saxpy]\n")
    summary = run_sweep(str(sweep), str(tmp_path / "out"), jobs=2, scgpu=scgpu, quiet=True)
    assert summary.duplicates_ignored == 2 and summary.ran == 2
    table = pd.read_csv(tmp_path / "out" / "results.csv", float_precision="round_trip")
    assert len(table) == 2 and "second delivery" not in set(table["message"])
