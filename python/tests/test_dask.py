"""The Dask engine: same table as the local engine, and no run lost or doubled when a worker dies."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pandas as pd
import pytest

from conftest import PYTHON, REPOSITORY, cli, make_launch_files, write
from scgpu_tools.sweep import run_sweep
from scgpu_tools.table import WALL_CLOCK_COLUMNS

distributed = pytest.importorskip("distributed", reason="Dask tests need python3-distributed")

SWEEP = """
    set: {sm.count: 2}
    grid: {dram.channels: [1, 2], l2.cache.size_bytes: [65536, 262144]}
    points: [{limits.cycles_per_launch: 2000}]
    workloads: [saxpy, reduce_tree, add_one_bad.yaml]
    """


def records(out):
    return [json.loads(p.read_text()) for p in (out / "runs").glob("*.json")
            if not p.name.endswith(".stats.json")]


def test_local_cluster_gives_the_same_table_as_local(tmp_path, scgpu):
    make_launch_files(tmp_path)
    sweep = write(tmp_path / "s.yaml", SWEEP)
    local = run_sweep(str(sweep), str(tmp_path / "local"), jobs=2, scgpu=scgpu, quiet=True)
    with distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        remote = run_sweep(str(sweep), str(tmp_path / "dask"), dask=cluster.scheduler_address,
                           scgpu=scgpu, quiet=True)
    assert local.exit_status == remote.exit_status == 0
    assert local.statuses == remote.statuses == {"passed": 8, "check_failed": 4, "timeout": 3}
    first = pd.read_csv(tmp_path / "local" / "results.csv", float_precision="round_trip").drop(columns=WALL_CLOCK_COLUMNS)
    second = pd.read_csv(tmp_path / "dask" / "results.csv", float_precision="round_trip").drop(columns=WALL_CLOCK_COLUMNS)
    pd.testing.assert_frame_equal(first, second)
    # the work was spread over the workers
    assert len({r["process"] for r in records(tmp_path / "dask")}) >= 2


def children_of(pid: int):
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stream:
                fields = stream.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def start(arguments, log):
    environment = dict(os.environ)
    return subprocess.Popen([PYTHON, "-m", *arguments], cwd=str(REPOSITORY), env=environment,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def stop(process):
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def wait_for(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_worker_killed_mid_sweep_loses_and_doubles_nothing(tmp_path, scgpu):
    """Scheduler and two workers as separate processes; one worker is killed with SIGKILL while
    it runs a simulation. Every run must end up in the table exactly once."""
    scheduler_file = tmp_path / "scheduler.json"
    log = open(tmp_path / "cluster.log", "w")
    scheduler = start(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                       "--no-dashboard", "--scheduler-file", str(scheduler_file)], log)
    workers = []
    try:
        wait_for(lambda: scheduler_file.exists() and scheduler_file.stat().st_size > 0, 60, "the scheduler")
        address = json.loads(scheduler_file.read_text())["address"]
        for name in ("victim", "survivor"):
            workers.append(start(["distributed.cli.dask_worker", address, "--nthreads", "1",
                                  "--no-nanny", "--no-dashboard", "--name", name], log))
        # Runs long enough (about 0.4 s each) that the victim is caught in the middle of one.
        sweep = write(tmp_path / "s.yaml", """
            set: {sm.count: 2}
            grid: {dram.channels: [1, 2, 4], l2.cache.size_bytes: [65536, 262144, 1048576]}
            workloads: [{name: vector_add, scale: 4}]
            """)
        out = tmp_path / "out"
        sweep_process = subprocess.Popen(
            [PYTHON, "-m", "scgpu_tools", "sweep", str(sweep), "--out", str(out), "--dask", address],
            cwd=str(REPOSITORY), env=dict(os.environ, SCGPU=scgpu), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        victim = workers[0]
        # Kill the victim while it has a simulator running, after it has finished at least one run.
        wait_for(lambda: (out / "runs").is_dir() and
                 any(r["process"] == victim.pid for r in records(out)), 120, "a result from the victim")
        simulator = wait_for(lambda: children_of(victim.pid), 60, "a simulation on the victim")
        os.killpg(victim.pid, signal.SIGKILL)
        for pid in simulator:          # it runs in its own session: end the orphan too
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        victim.wait()
        stdout, stderr = sweep_process.communicate(timeout=180)
        assert sweep_process.returncode == 0, stderr
    finally:
        for process in workers + [scheduler]:
            stop(process)
        log.close()

    table = pd.read_csv(out / "results.csv", float_precision="round_trip")
    assert len(table) == 9 and table["run_id"].nunique() == 9         # one row per run, no double
    assert set(table["status"]) == {"passed"}
    assert sorted(table["point"]) == list(range(9))
    done = records(out)
    assert len(done) == 9 and len({r["run_id"] for r in done}) == 9
    # both workers did work: the victim before it died, the survivor the rest
    assert len({r["process"] for r in done}) == 2


def test_the_cli_reports_an_unreachable_scheduler(tmp_path, scgpu):
    sweep = write(tmp_path / "s.yaml", "workloads: [saxpy]\n")
    completed = cli("sweep", sweep, "--out", tmp_path / "out", "--dask", "tcp://127.0.0.1:9",
                    "--dask-timeout", "2", scgpu=scgpu, timeout=120)
    assert completed.returncode == 3
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in completed.stderr
