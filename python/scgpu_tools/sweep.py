"""`scgpu_tools sweep`: expand a sweep file, run what is not finished yet, write the tables.

Resuming is the normal case, not a special mode: every sweep starts by asking the results
directory which runs are finished and runs only the others. A crash, Ctrl-C or a lost worker
therefore costs only the runs that were in flight.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, TextIO

from .errors import SweepFileError
from .expand import Run, expand_runs, set_argument, swept_keys
from .progress import Progress
from .simulator import RunOutcome, RunTask, build_argv, find_simulator, guard_timeout, list_workloads
from .store import ResultStore
from .sweepfile import Sweep, load_sweep
from .table import build_table, long_stats_table, run_rows, write_csv, write_sqlite

NOT_RUN = "not_run"


@dataclass
class SweepSummary:
    total: int = 0
    skipped: int = 0                     # finished by an earlier sweep
    ran: int = 0                         # finished in this sweep
    statuses: Dict[str, int] = field(default_factory=dict)
    lost: List[str] = field(default_factory=list)   # engine errors: "run_id: message"
    duplicates_ignored: int = 0          # outcomes that arrived for an already stored run
    interrupted: bool = False
    out_dir: str = ""
    unmatched_metrics: List[str] = field(default_factory=list)

    @property
    def exit_status(self) -> int:
        if self.interrupted:
            return 130
        return 1 if self.lost else 0


def run_meta(sweep: Sweep, run: Run) -> Dict:
    """What identifies a run in its record and in the table."""
    return {"run_id": run.run_id, "point": run.point.index, "workload": run.workload.label,
            "target": run.workload.target, "scale": run.workload.scale,
            "args": list(run.workload.args), "base": sweep.base,
            "overrides": [[key, value] for key, value in run.point.overrides]}


def make_task(sweep: Sweep, run: Run, scgpu: str) -> RunTask:
    target = run.workload.launch_file or run.workload.target
    argv = build_argv(scgpu, target, sweep.config_argument, run.point.overrides,
                      run.workload.scale, sweep.timeout_s, sweep.threads, run.workload.args)
    return RunTask(run_id=run.run_id, argv=tuple(argv), guard_timeout_s=guard_timeout(sweep.timeout_s))


def check_workload_names(sweep: Sweep, scgpu: str) -> None:
    """Suite workloads must exist: a typo would otherwise fail every point of the sweep."""
    try:
        known = list_workloads(scgpu)
    except (OSError, ValueError):
        return
    if not known:
        return
    problems = []
    for workload in sweep.workloads:
        if workload.is_launch_file or workload.target in known:
            continue
        close = difflib.get_close_matches(workload.target, known, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else " (`scgpu list` lists them)"
        problems.append((workload.location, f"unknown workload '{workload.target}'{hint}"))
    if problems:
        raise SweepFileError(problems)


def where_set(sweep: Sweep, message: str) -> str:
    """For the simulator's "--set 'KEY=VALUE': error: ...", where the sweep file wrote VALUE."""
    match = re.match(r"^--set '([^=']+)=(.*?)': ", message)
    if not match:
        return ""
    key, text = match.groups()
    for (written_key, _, value), location in sweep.value_locations.items():
        if written_key == key and set_argument(value) == text:
            return f" (written at {location})"
    return ""


def describe_point(overrides) -> str:
    return " ".join(f"{key}={value}" for key, value in overrides) or "(base config)"


def dry_run(sweep: Sweep, out_dir: Optional[str], stream: TextIO) -> int:
    runs, duplicates = expand_runs(sweep)
    points = sorted({run.point.index: run.point for run in runs}.values(), key=lambda p: p.index)
    finished = ResultStore(out_dir).finished(run.run_id for run in runs) if out_dir and os.path.isdir(out_dir) else set()
    stream.write(f"{sweep.path}: {len(points)} points x {len(sweep.workloads)} workloads = "
                 f"{len(runs)} runs")
    if duplicates:
        stream.write(f" ({duplicates} duplicate points dropped)")
    if finished:
        stream.write(f"; {len(finished)} already finished in {out_dir}")
    stream.write("\n")
    for point in points:
        stream.write(f"  point {point.index}: {describe_point(point.overrides)}\n")
    for workload in sweep.workloads:
        extra = f" scale {workload.scale}" if workload.scale else ""
        extra += f" args {' '.join(workload.args)}" if workload.args else ""
        stream.write(f"  workload {workload.label}: {workload.target}{extra}\n")
    return 0


def write_tables(sweep: Sweep, runs: List[Run], store: ResultStore, lost: Dict[str, str]) -> List[str]:
    """Rebuild results.csv and results.sqlite from the records on disk; unmatched metrics."""
    parameters = sweep.parameters()
    rows, stats_by_run = [], {}
    for run in runs:
        meta = run_meta(sweep, run)
        record = store.load_record(run.run_id)
        stats = None
        if record is None:
            reason = lost.get(run.run_id, "not run yet; run the sweep again to resume")
            record = {"status": NOT_RUN, "message": reason}
        else:
            stats = store.load_stats(run.run_id)
            stats_by_run[run.run_id] = stats
        rows.extend(run_rows(meta, record, stats, parameters))
    frame, unmatched = build_table(rows, parameters, sweep.metrics)
    write_csv(frame, os.path.join(store.directory, "results.csv"))
    meta = {"sweep_file": os.path.abspath(sweep.path), "base": sweep.base,
            "parameters": ",".join(parameters), "written": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    write_sqlite(frame, long_stats_table(stats_by_run), meta,
                 os.path.join(store.directory, "results.sqlite"))
    return unmatched


def sweep_description(sweep: Sweep, runs: List[Run], scgpu: str, engine: str) -> Dict:
    points = sorted({run.point.index: run.point for run in runs}.values(), key=lambda p: p.index)
    return {
        "sweep_file": os.path.abspath(sweep.path), "description": sweep.description,
        "base": sweep.base, "scgpu": scgpu, "engine": engine,
        "parameters": sweep.parameters(), "swept": swept_keys(points),
        # Keys zipped together move as one: charts use the first as the axis of the group.
        "zip_groups": [[key for key, _ in group] for group in sweep.zips],
        "points": [{"index": p.index, "overrides": [[k, v] for k, v in p.overrides]} for p in points],
        "workloads": [{"label": w.label, "target": w.target, "scale": w.scale, "args": list(w.args)}
                      for w in sweep.workloads],
        "runs": [{"run_id": r.run_id, "point": r.point.index, "workload": r.workload.label} for r in runs],
        "metrics": sweep.metrics, "timeout_s": sweep.timeout_s, "threads": sweep.threads,
    }


def run_sweep(sweep_path: str, out_dir: str, jobs: int = 0, dask: Optional[object] = None,
              scgpu: Optional[str] = None, retries: int = 3, quiet: bool = False,
              stream: Optional[TextIO] = None, dask_timeout_s: float = 30.0) -> SweepSummary:
    """Run (or resume) a sweep into `out_dir`. `dask` is a scheduler address or a Client."""
    stream = stream or sys.stderr
    sweep = load_sweep(sweep_path)
    runs, duplicates = expand_runs(sweep)
    scgpu = find_simulator(scgpu)
    check_workload_names(sweep, scgpu)

    if dask is not None:
        from .engines.dask_engine import DaskEngine
        engine = DaskEngine(dask, scgpu, retries=retries, connect_timeout_s=dask_timeout_s)
    else:
        from .engines.local import LocalEngine
        if not jobs:
            # Each run may use several host threads (threads:); fill the cores, not more.
            jobs = max(1, (os.cpu_count() or 1) // sweep.threads)
        engine = LocalEngine(jobs)

    store = ResultStore(out_dir)
    store.lock()
    summary = SweepSummary(total=len(runs), out_dir=store.directory)
    try:
        with open(sweep_path, encoding="utf-8") as source:
            store.write_text("sweep.yaml", source.read())
        store.write_json("sweep.json", sweep_description(sweep, runs, scgpu, engine.describe()))
        finished = store.finished(run.run_id for run in runs)
        todo = [run for run in runs if run.run_id not in finished]
        summary.skipped = len(runs) - len(todo)
        by_id = {run.run_id: run for run in todo}
        tasks = {run.run_id: make_task(sweep, run, scgpu) for run in todo}
        if not quiet:
            note = f" ({duplicates} duplicate points dropped)" if duplicates else ""
            stream.write(f"sweep: {len(runs)} runs{note}; {summary.skipped} finished before, "
                         f"{len(todo)} to run ({engine.describe()}); results in {store.directory}\n")
        progress = Progress(len(runs), summary.skipped, stream=stream, quiet=quiet)
        lost: Dict[str, str] = {}

        def on_outcome(outcome: RunOutcome) -> None:
            run = by_id[outcome.run_id]
            record = {**outcome.record(), **run_meta(sweep, run),
                      "command": list(tasks[outcome.run_id].argv)}
            if not store.save(record, outcome.stats_text):
                summary.duplicates_ignored += 1
                return
            lost.pop(outcome.run_id, None)
            summary.ran += 1
            summary.statuses[outcome.status] = summary.statuses.get(outcome.status, 0) + 1
            if outcome.status != "passed":
                progress.note(f"  {outcome.status}: {run.workload.label} at point "
                              f"{run.point.index} [{describe_point(run.point.overrides)}]: "
                              f"{outcome.message}{where_set(sweep, outcome.message)}")
            progress.advance(outcome.status == "passed")

        def on_error(task: RunTask, error: BaseException) -> None:
            run = by_id[task.run_id]
            message = f"could not run: {type(error).__name__}: {error}".strip()
            lost[task.run_id] = message
            summary.lost.append(f"{task.run_id}: {message}")
            progress.note(f"  lost: {run.workload.label} at point {run.point.index}: {message}")

        try:
            engine.run(list(tasks.values()), on_outcome, on_error)
        except KeyboardInterrupt:
            summary.interrupted = True
        progress.finish()
        summary.unmatched_metrics = write_tables(sweep, runs, store, lost)
    finally:
        store.unlock()
    if not quiet:
        write_summary(summary, stream)
    return summary


def write_summary(summary: SweepSummary, stream: TextIO) -> None:
    counts = ", ".join(f"{count} {status}" for status, count in sorted(summary.statuses.items()))
    stream.write(f"sweep: ran {summary.ran} of {summary.total} runs ({counts or 'none'}); "
                 f"{summary.skipped} were finished before\n")
    if summary.duplicates_ignored:
        stream.write(f"sweep: {summary.duplicates_ignored} results arrived twice and were kept once\n")
    if summary.lost:
        stream.write(f"sweep: {len(summary.lost)} runs could not be run; run the sweep again to "
                     f"retry them\n")
    if summary.interrupted:
        stream.write("sweep: interrupted; run the same command again to resume\n")
    for pattern in summary.unmatched_metrics:
        stream.write(f"sweep: warning: metric '{pattern}' matches no statistic\n")
    stream.write(f"sweep: tables: {os.path.join(summary.out_dir, 'results.csv')}, "
                 f"{os.path.join(summary.out_dir, 'results.sqlite')}\n")
