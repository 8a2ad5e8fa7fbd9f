"""Engines run many RunTasks and hand back each RunOutcome as it arrives.

Both engines have the same interface, ``run(tasks, on_outcome, on_error)``:

* ``on_outcome(outcome)`` is called in the calling thread for every finished run (whatever the
  simulator said: faults and failed checks are outcomes);
* ``on_error(task, exception)`` for a run the engine could not carry out (the simulator would
  not start, a Dask task was lost after its retries); such runs are not stored, so the next
  sweep tries them again;
* Ctrl-C (KeyboardInterrupt) stops the sweep: the engine stops what runs, reports what it can,
  and re-raises.
"""

from .local import LocalEngine

__all__ = ["LocalEngine"]
