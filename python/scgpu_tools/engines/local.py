"""Run the sweep on this machine: a pool of threads, each starting one simulator at a time.

Threads are enough: the work happens in the simulator processes, and a thread only waits for
its child. The pool size is the number of simulators running at once (default: all cores).
"""

from __future__ import annotations

import os
import signal
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from typing import Callable, Dict, List

from ..simulator import RunOutcome, RunTask, execute, interrupt_all, reset_interrupt


class LocalEngine:
    name = "local"

    def __init__(self, jobs: int = 0):
        self.jobs = jobs if jobs and jobs > 0 else (os.cpu_count() or 1)

    def describe(self) -> str:
        return f"local, {self.jobs} at a time"

    def run(self, tasks: List[RunTask], on_outcome: Callable[[RunOutcome], None],
            on_error: Callable[[RunTask, BaseException], None]) -> None:
        reset_interrupt()
        executor = ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="scgpu-run")
        futures: Dict[Future, RunTask] = {executor.submit(execute, task): task for task in tasks}
        delivered = set()

        def deliver(future: Future) -> None:
            delivered.add(future)
            if future.cancelled():
                return
            error = future.exception()
            if error is not None:
                on_error(futures[future], error)
            else:
                on_outcome(future.result())

        try:
            for future in as_completed(futures):
                deliver(future)
        except KeyboardInterrupt:
            # Nothing new starts; each running simulator gets one SIGINT, stops at its next
            # check and writes its partial statistics; those outcomes are still reported.
            for future in futures:
                future.cancel()
            interrupt_all(signal.SIGINT)
            try:
                for future in as_completed([f for f in futures if f not in delivered]):
                    deliver(future)
            except KeyboardInterrupt:
                interrupt_all(signal.SIGKILL)    # a second Ctrl-C: stop at once
            raise
        finally:
            executor.shutdown(wait=True, cancel_futures=True)
