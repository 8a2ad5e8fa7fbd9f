"""The results directory of a sweep: one record per finished run, written once, atomically.

Layout::

    DIR/sweep.yaml            copy of the sweep file the results came from
    DIR/sweep.json            the expanded sweep: points, workloads, swept parameters
    DIR/runs/ID.json          the run's record (status, message, command, point) - the marker
                              that the run is finished
    DIR/runs/ID.stats.json    the simulator's --stats-json output, verbatim
    DIR/results.csv           the table (rebuilt from runs/ at the end of every sweep)
    DIR/results.sqlite        the same, as SQLite

Every file is written to a temporary name and renamed into place, so a crash or Ctrl-C never
leaves half a file. The statistics go first and the record last: a record on disk means both are
complete. A final record is written at most once (a hard link refuses to replace an existing
name), so a run that a Dask worker finishes twice - it died after running but before reporting,
and the task was retried - is kept once. Records of interrupted runs are provisional: they show
up in the table but the next sweep runs them again.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import tempfile
from typing import Dict, Iterable, Optional, Set

from .errors import ToolError

PROVISIONAL_STATUSES = ("interrupted",)


def _file_mode() -> int:
    """The mode open() would give a new file (mkstemp uses 0600, too strict for results)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


FILE_MODE = _file_mode()


def write_atomically(path: str, data: bytes, replace: bool = True) -> bool:
    """Write `data` to `path` through a temporary file in the same directory.

    With replace=False an existing `path` is left alone and False is returned.
    """
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp",
                                         dir=directory)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, FILE_MODE)
        if replace:
            os.replace(temporary, path)
            return True
        try:
            os.link(temporary, path)       # fails if `path` exists: write-once
            return True
        except FileExistsError:
            return False
        except OSError as error:
            # A file system without hard links: check, then rename (not atomic against another
            # writer, but the directory lock keeps other sweeps out).
            if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                raise
            if os.path.exists(path):
                return False
            os.replace(temporary, path)
            return True
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


class ResultStore:
    """Reads and writes the per-run files of one results directory."""

    def __init__(self, directory: str):
        self.directory = os.path.abspath(directory)
        self.runs_directory = os.path.join(self.directory, "runs")
        self._lock_stream = None

    # -- locking: one sweep at a time writes a directory ----------------------------------------

    def lock(self) -> None:
        os.makedirs(self.runs_directory, exist_ok=True)
        stream = open(os.path.join(self.directory, ".lock"), "a+")
        try:
            fcntl.flock(stream.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            stream.seek(0)
            holder = stream.read().strip() or "another process"
            stream.close()
            raise ToolError(f"{self.directory} is in use by another sweep (pid {holder}); wait "
                            f"for it or use another --out directory")
        stream.seek(0)
        stream.truncate()
        stream.write(str(os.getpid()))
        stream.flush()
        self._lock_stream = stream

    def unlock(self) -> None:
        if self._lock_stream is not None:
            fcntl.flock(self._lock_stream.fileno(), fcntl.LOCK_UN)
            self._lock_stream.close()
            self._lock_stream = None

    # -- paths --------------------------------------------------------------------------------

    def record_path(self, run_id: str) -> str:
        return os.path.join(self.runs_directory, f"{run_id}.json")

    def stats_path(self, run_id: str) -> str:
        return os.path.join(self.runs_directory, f"{run_id}.stats.json")

    # -- reading ------------------------------------------------------------------------------

    def load_record(self, run_id: str) -> Optional[Dict]:
        try:
            with open(self.record_path(run_id), encoding="utf-8") as stream:
                record = json.load(stream)
        except (OSError, ValueError):
            return None
        return record if isinstance(record, dict) and record.get("run_id") == run_id else None

    def load_stats(self, run_id: str) -> Optional[Dict]:
        try:
            with open(self.stats_path(run_id), encoding="utf-8") as stream:
                stats = json.load(stream)
        except (OSError, ValueError):
            return None
        return stats if isinstance(stats, dict) else None

    def finished(self, run_ids: Iterable[str]) -> Set[str]:
        """Those of `run_ids` whose final record exists (a rerun would change nothing)."""
        done = set()
        for run_id in run_ids:
            record = self.load_record(run_id)
            if record is not None and record.get("status") not in PROVISIONAL_STATUSES:
                done.add(run_id)
        return done

    # -- writing ------------------------------------------------------------------------------

    def save(self, record: Dict, stats_text: Optional[str]) -> bool:
        """Store one run; False when a final record for it existed already (kept as it was)."""
        run_id = record["run_id"]
        existing = self.load_record(run_id)
        if existing is not None and existing.get("status") not in PROVISIONAL_STATUSES:
            return False
        final = record.get("status") not in PROVISIONAL_STATUSES
        if stats_text is not None:
            write_atomically(self.stats_path(run_id), stats_text.encode("utf-8"))
        elif os.path.exists(self.stats_path(run_id)):
            os.unlink(self.stats_path(run_id))      # stale, from an earlier interrupted try
        data = (json.dumps(record, indent=1, sort_keys=True) + "\n").encode("utf-8")
        if final and not os.path.exists(self.record_path(run_id)):
            return write_atomically(self.record_path(run_id), data, replace=False)
        # Replacing a provisional or unreadable record (or writing a provisional one).
        write_atomically(self.record_path(run_id), data, replace=True)
        return True

    def write_json(self, name: str, value) -> None:
        write_atomically(os.path.join(self.directory, name),
                         (json.dumps(value, indent=1, default=str) + "\n").encode("utf-8"))

    def write_text(self, name: str, text: str) -> None:
        write_atomically(os.path.join(self.directory, name), text.encode("utf-8"))
