"""A progress line for a running sweep: done/total, failures so far, an ETA.

On a terminal the line is rewritten in place; in a log (not a terminal) a line is printed at
most every few seconds, so that a long sweep in CI shows it is alive without flooding the log.
A run that did not pass is always printed on a line of its own, with its message.
"""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO


def format_duration(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


class Progress:
    def __init__(self, total: int, skipped: int, stream: Optional[TextIO] = None,
                 quiet: bool = False, log_interval_s: float = 5.0):
        self.total = total              # runs of the sweep, finished earlier ones included
        self.skipped = skipped          # finished by an earlier sweep, not run now
        self.done = 0                   # finished in this sweep
        self.failed = 0
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.interactive = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.started = time.monotonic()
        self.log_interval_s = log_interval_s
        self._last_log = 0.0

    def line(self) -> str:
        finished = self.skipped + self.done
        remaining = self.total - finished
        text = f"sweep: {finished}/{self.total} done"
        if self.skipped:
            text += f" ({self.skipped} from before)"
        text += f", {self.failed} not passed"
        elapsed = time.monotonic() - self.started
        if self.done and remaining:
            # Runs proceed in parallel; the observed rate already includes that.
            text += f", ETA {format_duration(elapsed / self.done * remaining)}"
        elif not remaining:
            text += f", took {format_duration(elapsed)}"
        return text

    def note(self, message: str) -> None:
        """A line of its own (a failure), kept above the progress line."""
        if self.quiet:
            return
        if self.interactive:
            self.stream.write("\r\033[K")
        self.stream.write(message + "\n")
        if self.interactive:
            self.show()

    def advance(self, passed: bool) -> None:
        self.done += 1
        if not passed:
            self.failed += 1
        self.show()

    def show(self, force: bool = False) -> None:
        if self.quiet:
            return
        now = time.monotonic()
        if self.interactive:
            self.stream.write("\r\033[K" + self.line())
        elif force or now - self._last_log >= self.log_interval_s or self.skipped + self.done == self.total:
            self.stream.write(self.line() + "\n")
            self._last_log = now
        self.stream.flush()

    def finish(self) -> None:
        if self.quiet:
            return
        if self.interactive:
            self.stream.write("\r\033[K" + self.line() + "\n")
            self.stream.flush()
