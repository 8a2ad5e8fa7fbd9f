"""Run the sweep on a Dask distributed cluster: one task per point x workload.

Each task runs `simulator.execute` on a worker and returns the outcome, statistics included, to
this process, which alone writes the results directory. That gives the guarantees a sweep needs
when workers die:

* no run is lost: a task on a worker that dies is rescheduled by the scheduler, and a task that
  raises is retried (`retries=`);
* no run is duplicated: tasks are keyed by run id (Dask holds one task per key) and a record is
  written at most once (store.py), so a run that finished twice is stored once.

Workers need `scgpu_tools` importable (PYTHONPATH=.../python) and the simulator, the configs
and any launch files at the same paths as here (a shared or identical file system).
"""

from __future__ import annotations

from typing import Callable, Dict, List, Union

from ..errors import ToolError
from ..simulator import RunOutcome, RunTask, execute


def _probe_worker(scgpu: str) -> Dict[str, object]:
    """Runs on each worker before the sweep: can it import the tools and run the simulator?"""
    import importlib.util
    import os
    import socket

    return {"host": socket.gethostname(),
            "scgpu_tools": importlib.util.find_spec("scgpu_tools") is not None,
            "scgpu": os.path.isfile(scgpu) and os.access(scgpu, os.X_OK)}


class DaskEngine:
    name = "dask"

    def __init__(self, scheduler: Union[str, object], scgpu: str, retries: int = 3,
                 connect_timeout_s: float = 30.0):
        self.scheduler = scheduler      # an address (tcp://host:port) or a distributed.Client
        self.scgpu = scgpu
        self.retries = retries
        self.connect_timeout_s = connect_timeout_s

    def describe(self) -> str:
        address = self.scheduler if isinstance(self.scheduler, str) else getattr(self.scheduler, "scheduler", "client")
        return f"dask at {address}, retries={self.retries}"

    def _client(self):
        try:
            from distributed import Client
        except ImportError as error:     # pragma: no cover - depends on the installation
            raise ToolError(f"--dask needs the 'distributed' package (Debian: python3-distributed): {error}")
        if not isinstance(self.scheduler, str):
            return self.scheduler, False
        try:
            client = Client(self.scheduler, timeout=self.connect_timeout_s, set_as_default=False)
        except (OSError, TimeoutError) as error:
            raise ToolError(f"cannot reach the Dask scheduler at {self.scheduler}: {error}")
        return client, True

    def _check_workers(self, client) -> None:
        try:
            client.wait_for_workers(1, timeout=self.connect_timeout_s)
        except (TimeoutError, OSError):
            raise ToolError(f"the Dask cluster has no workers (waited {self.connect_timeout_s:g} s)")
        # cloudpickle sends _probe_worker by value only if workers cannot import it; they may
        # not have scgpu_tools yet, so send a copy that does not need it.
        probe = _copy_by_value(_probe_worker)
        answers = client.run(probe, self.scgpu)
        problems = []
        for worker, answer in sorted(answers.items()):
            if not answer["scgpu_tools"]:
                problems.append(f"{worker} ({answer['host']}): cannot import scgpu_tools (set "
                                f"PYTHONPATH to the repository's python/ directory)")
            if not answer["scgpu"]:
                problems.append(f"{worker} ({answer['host']}): no executable {self.scgpu}")
        if problems:
            raise ToolError("Dask workers cannot run the sweep:\n  " + "\n  ".join(problems))

    def run(self, tasks: List[RunTask], on_outcome: Callable[[RunOutcome], None],
            on_error: Callable[[RunTask, BaseException], None]) -> None:
        from distributed import as_completed

        client, owned = self._client()
        futures = []
        try:
            self._check_workers(client)
            by_key: Dict[str, RunTask] = {}
            for task in tasks:
                key = f"scgpu-run-{task.run_id}"
                by_key[key] = task
                futures.append(client.submit(execute, task, key=key, pure=False,
                                             retries=self.retries))
            for future in as_completed(futures, loop=client.loop):
                task = by_key[future.key]
                if future.status == "finished":
                    on_outcome(future.result())
                else:
                    on_error(task, _exception_of(future))
                future.release()
        except KeyboardInterrupt:
            # Tasks not started are dropped; a simulator already running on a worker finishes
            # there, but its result is not waited for (the next sweep runs it again).
            client.cancel(futures)
            raise
        finally:
            if owned:
                client.close()


def _exception_of(future) -> BaseException:
    try:
        error = future.exception()
    except Exception as raised:       # a cancelled future raises instead of returning
        return raised
    return error if error is not None else RuntimeError(f"task {future.key} ended as {future.status}")


def _copy_by_value(function: Callable) -> Callable:
    """A copy of a module-level function that pickles by value (its module is not imported)."""
    import types

    copy = types.FunctionType(function.__code__, {"__builtins__": __builtins__},
                              function.__name__, function.__defaults__, function.__closure__)
    copy.__qualname__ = f"<by-value>.{function.__name__}"
    copy.__module__ = "__main__"
    return copy

