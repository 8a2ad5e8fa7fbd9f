"""Find the scgpu binary and run it once: argument vector in, status and statistics out.

The simulator is always started with an argument list, never through a shell, so that no value
in a sweep file is ever interpreted by one. Each run works in its own temporary directory (the
simulator may drop files such as fault waveforms into its working directory) and the statistics
come back as the text of the `--stats-json` file.

This module is imported by Dask workers too, so it depends on nothing but the standard library.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

from .errors import SimulatorNotFound

# The simulator's exit statuses (docs/cli.md) and the status names the results table uses.
EXIT_PASSED, EXIT_CHECK_FAILED, EXIT_FAULT, EXIT_INPUT_ERROR, EXIT_DIVERGED = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130

STATUSES = ("passed", "check_failed", "fault", "timeout", "input_error", "diverged",
            "interrupted", "crashed")

# Seconds a run gets after SIGINT to write its partial statistics before it is killed.
INTERRUPT_GRACE_S = 10.0


def default_simulator_candidates() -> List[str]:
    """Where to look for scgpu when neither --scgpu nor $SCGPU names it."""
    repository = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    candidates = [os.path.join(repository, "build", "scgpu")]
    on_path = shutil.which("scgpu")
    if on_path:
        candidates.append(on_path)
    return candidates


def find_simulator(explicit: Optional[str] = None) -> str:
    """The scgpu binary to use: --scgpu, then $SCGPU, then build/scgpu, then scgpu on PATH."""
    if explicit:
        tried = [("--scgpu", explicit)]
    elif os.environ.get("SCGPU"):
        tried = [("$SCGPU", os.environ["SCGPU"])]
    else:
        tried = [("default", path) for path in default_simulator_candidates()]
    for _, path in tried:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
    looked = ", ".join(f"{path} ({origin})" for origin, path in tried) or "build/scgpu, PATH"
    raise SimulatorNotFound(f"no scgpu binary found: looked for {looked}; build it (scripts/"
                            f"build.sh) or name it with --scgpu PATH or SCGPU=PATH")


def list_workloads(scgpu: str) -> List[str]:
    """Names of the suite's workloads, from `scgpu list`."""
    completed = subprocess.run([scgpu, "list"], stdin=subprocess.DEVNULL, capture_output=True,
                               text=True, timeout=60, check=False)
    names = []
    for line in completed.stdout.splitlines():
        words = line.split()
        # Rows are "name archs description"; the header and the ruler are not workloads.
        if len(words) >= 2 and words[0] != "workload" and words[1].startswith("sm_"):
            names.append(words[0])
    return names


@dataclass(frozen=True)
class RunTask:
    """Everything a worker needs to run one point: picklable, no references to the sweep."""

    run_id: str
    argv: tuple              # the full command without --stats-json (added per run)
    guard_timeout_s: Optional[float] = None   # kill the run after this long (None: never)


@dataclass
class RunOutcome:
    """What one run produced; `stats_text` is the simulator's --stats-json file, verbatim."""

    run_id: str
    status: str
    exit_code: Optional[int]
    message: str
    wall_s: float
    host: str
    stats_text: Optional[str]
    stderr_tail: str = ""
    process: int = 0         # pid of the Python process that ran it (which Dask worker)

    def record(self) -> Dict:
        """The outcome without the statistics, as stored in runs/<id>.json."""
        return {"run_id": self.run_id, "status": self.status, "exit_code": self.exit_code,
                "message": self.message, "wall_s": self.wall_s, "host": self.host,
                "stderr_tail": self.stderr_tail, "process": self.process}


# Running simulator processes of this Python process, so that Ctrl-C on the sweep can pass one
# SIGINT on to each (they run in their own sessions and do not see the terminal's).
_live_lock = threading.Lock()
_live: Dict[int, subprocess.Popen] = {}
_interrupting = threading.Event()


def interrupt_all(sig: int = signal.SIGINT) -> int:
    """Send `sig` to every running simulator of this process; returns how many got it."""
    _interrupting.set()
    with _live_lock:
        processes = list(_live.values())
    for process in processes:
        try:
            process.send_signal(sig)
        except ProcessLookupError:
            pass
    return len(processes)


def reset_interrupt() -> None:
    _interrupting.clear()


def execute(task: RunTask) -> RunOutcome:
    """Run one point in a fresh temporary directory and classify the outcome.

    Never raises for a failing simulation: a fault, a failed check or an input error is a result
    like any other. It raises only when the simulator cannot be started at all.
    """
    host = socket.gethostname()
    with tempfile.TemporaryDirectory(prefix=f"scgpu-{task.run_id}-") as workdir:
        stats_path = os.path.join(workdir, "stats.json")
        argv = list(task.argv) + ["--stats-json", stats_path]
        started = time.monotonic()
        guard_fired = False
        if _interrupting.is_set():
            return RunOutcome(task.run_id, "interrupted", None, "not started: the sweep was "
                              "interrupted", 0.0, host, None, "", os.getpid())
        process = subprocess.Popen(argv, cwd=workdir, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   errors="replace", start_new_session=True)
        with _live_lock:
            _live[process.pid] = process
        if _interrupting.is_set():      # Ctrl-C came between the check above and the start
            process.send_signal(signal.SIGINT)
        try:
            try:
                stdout, stderr = process.communicate(timeout=task.guard_timeout_s)
            except subprocess.TimeoutExpired:
                # The simulator's own --timeout should have stopped it; ask it to stop (it then
                # writes its partial statistics), then insist.
                guard_fired = True
                process.send_signal(signal.SIGINT)
                try:
                    stdout, stderr = process.communicate(timeout=INTERRUPT_GRACE_S)
                except subprocess.TimeoutExpired:
                    process.kill()
                    stdout, stderr = process.communicate()
        finally:
            with _live_lock:
                _live.pop(process.pid, None)
        wall_s = time.monotonic() - started
        stats_text = None
        if os.path.isfile(stats_path):
            with open(stats_path, encoding="utf-8", errors="replace") as stream:
                stats_text = stream.read()
    stats = _parse_stats(stats_text)
    status, message = classify(process.returncode, stats, stdout, stderr, guard_fired,
                               task.guard_timeout_s)
    if _interrupting.is_set() and status not in ("passed", "interrupted"):
        # The sweep sent this run a SIGINT: whatever it then said (a process caught before it
        # installed its handler may fail in any way) is not its result. Run it again next time.
        said = f"{status}: {message}" if message else status
        status, message = "interrupted", _one_line(f"interrupted by the sweep ({said})")
    return RunOutcome(task.run_id, status, process.returncode, message, round(wall_s, 3), host,
                      stats_text, _tail(stderr), os.getpid())


def _parse_stats(text: Optional[str]) -> Optional[dict]:
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _tail(text: str, lines: int = 20, limit: int = 4000) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])[-limit:]


def _one_line(text: str, limit: int = 500) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def classify(exit_code: int, stats: Optional[dict], stdout: str, stderr: str,
             guard_fired: bool = False, guard_timeout_s: Optional[float] = None):
    """(status, one-line message) of a finished simulator process."""
    if guard_fired:
        return "timeout", _one_line(f"no result within {guard_timeout_s:g} s; stopped by the "
                                    f"sweep")
    fault = (stats or {}).get("fault") or {}
    if exit_code == EXIT_PASSED:
        return "passed", _one_line((stats or {}).get("message", "") or _verdict(stdout))
    if exit_code == EXIT_CHECK_FAILED:
        return "check_failed", _one_line(_check_message(stats) or _verdict(stdout))
    if exit_code == EXIT_FAULT:
        kind = fault.get("kind", "")
        status = "timeout" if kind == "timeout" else "fault"
        if fault:
            kernel = f" in kernel '{fault['kernel']}'" if fault.get("kernel") else ""
            return status, _one_line(f"{kind or 'fault'}{kernel}: {fault.get('message', '')}")
        return status, _one_line(_first_error(stderr) or _verdict(stdout))
    if exit_code == EXIT_INPUT_ERROR:
        return "input_error", _one_line(_first_error(stderr) or "input error")
    if exit_code == EXIT_DIVERGED:
        return "diverged", _one_line(_first_error(stderr) or _verdict(stdout))
    if exit_code == EXIT_INTERRUPTED or (exit_code is not None and exit_code == -signal.SIGINT):
        return "interrupted", "interrupted (Ctrl-C)"
    if exit_code is not None and exit_code < 0:
        name = signal.Signals(-exit_code).name if -exit_code in signal.valid_signals() else exit_code
        return "crashed", _one_line(f"killed by signal {name}: {_first_error(stderr)}".rstrip(": "))
    return "crashed", _one_line(f"exit status {exit_code}: {_first_error(stderr)}".rstrip(": "))


def _verdict(stdout: str) -> str:
    for line in stdout.splitlines():
        if line.startswith(("PASSED", "FAILED", "FAULT", "DIVERGED")):
            return line
    return ""


def _check_message(stats: Optional[dict]) -> str:
    if not stats:
        return ""
    if stats.get("message"):
        return stats["message"]
    failed = [check.get("message", "") for check in stats.get("checks", []) if not check.get("passed")]
    return "; ".join(failed)


def _first_error(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if "error" in line.lower():
            return line
    return lines[0] if lines else ""


def build_argv(scgpu: str, target: str, config: str, overrides: Sequence[tuple],
               scale: Optional[int], timeout_s: Optional[float], threads: int,
               extra_args: Sequence[str]) -> List[str]:
    """The `scgpu run` command of one run (without --stats-json, which `execute` adds)."""
    from .expand import set_argument   # local import: keeps worker-side imports minimal

    argv = [scgpu, "run", target, "--config", config, "--quiet"]
    for key, value in overrides:
        argv += ["--set", f"{key}={set_argument(value)}"]
    if scale is not None:
        argv += ["--scale", str(scale)]
    if timeout_s is not None:
        argv += ["--timeout", repr(float(timeout_s))]
    argv += ["--threads", str(threads)]
    # A fault would otherwise re-run the simulation to write a waveform nobody asked for.
    if not any(arg.split("=", 1)[0] == "--fault-trace-cycles" for arg in extra_args):
        argv += ["--fault-trace-cycles", "0"]
    argv += list(extra_args)
    return argv


def guard_timeout(timeout_s: Optional[float]) -> Optional[float]:
    """How long the sweep waits before it stops a run itself: the simulator's own --timeout
    normally ends the run first; this only catches a simulator that does not answer."""
    if timeout_s is None:
        return None
    return timeout_s * 1.5 + 30.0
