"""Error types shared by the sweep tools.

Errors in input files are reported as ``FILE:LINE:COL: error: WHAT``, the form the simulator
itself uses for configs and launch files, so that editors and `grep -n`-style tools can jump to
the spot.  Lines and columns are 1-based, as people count them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, List


@dataclass(frozen=True)
class Location:
    """A position in a text file (1-based line and column)."""

    path: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


class ToolError(Exception):
    """A problem the user can fix (bad input, missing simulator); printed without a traceback.

    ``exit_status`` follows the simulator's convention: 3 is an input error.
    """

    exit_status = 3


class SweepFileError(ToolError):
    """One or more problems in a sweep file, each with its location."""

    def __init__(self, problems: Iterable[tuple[Location, str]]):
        self.problems: List[tuple[Location, str]] = list(problems)
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join(f"{location}: error: {message}" for location, message in self.problems)


class SimulatorNotFound(ToolError):
    """No scgpu binary where we looked."""
