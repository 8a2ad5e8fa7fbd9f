"""Expand a checked sweep into the runs to do: points (override sets) x workloads.

Points are the cartesian product of every `grid:` axis and every `zip:` group (a group is one
axis whose steps set several keys at once), followed by the explicit `points:`. Each point starts
from `set:`. With no grid, zip or points there is one point: the base config plus `set:`.

Every run gets an id that is a hash of what determines its result (config, overrides,
workload, scale, arguments) and nothing else, so that the results directory can be resumed even
after the sweep file gained or lost values: an unchanged run keeps its id and is not run again.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass
from typing import Dict, List, Tuple

import yaml

from .sweepfile import Sweep, Value, Workload


@dataclass(frozen=True)
class Point:
    """One configuration: its position in the sweep and the overrides that define it."""

    index: int
    overrides: Tuple[Tuple[str, Value], ...]   # (key, value), set: first, then the point's own

    def as_dict(self) -> Dict[str, Value]:
        return dict(self.overrides)


@dataclass(frozen=True)
class Run:
    """One simulator invocation: a point with a workload."""

    run_id: str
    point: Point
    workload: Workload


def set_argument(value: Value) -> str:
    """Text of a `--set KEY=VALUE` value that the simulator's YAML parser reads back as `value`.

    A string that YAML would read as something else ("4", "true") keeps its quotes, so that the
    simulator sees what the sweep file said.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if yaml.safe_load(value) == value and "\n" not in value:
        return value
    return yaml.safe_dump(value, default_style="'").strip().removesuffix("\n...").strip()


def expand_points(sweep: Sweep) -> Tuple[List[Point], int]:
    """All points of the sweep in order, and how many duplicates were dropped."""
    axes: List[List[List[Tuple[str, Value]]]] = []
    for key, values in sweep.grid:
        axes.append([[(key, value)] for value in values])
    for group in sweep.zips:
        length = len(group[0][1])
        axes.append([[(key, values[step]) for key, values in group] for step in range(length)])

    override_sets: List[List[Tuple[str, Value]]] = []
    if axes:
        for combination in itertools.product(*axes):
            override_sets.append([pair for step in combination for pair in step])
    for point in sweep.points:
        override_sets.append(list(point.items()))
    if not override_sets:
        override_sets.append([])

    points: List[Point] = []
    seen = set()
    duplicates = 0
    for own in override_sets:
        merged = dict(sweep.fixed)
        merged.update(own)      # a point's own value wins over set:
        identity = canonical_overrides(merged)
        if identity in seen:
            duplicates += 1
            continue
        seen.add(identity)
        points.append(Point(index=len(points), overrides=tuple(merged.items())))
    return points, duplicates


def canonical_overrides(overrides: Dict[str, Value]) -> Tuple[Tuple[str, str], ...]:
    """Overrides as the simulator sees them (sorted, as --set text): equal configs compare equal."""
    return tuple(sorted((key, set_argument(value)) for key, value in overrides.items()))


def run_id_for(sweep: Sweep, point: Point, workload: Workload) -> str:
    """Stable id of a run: a hash of everything that determines its result."""
    identity = {
        "base": sweep.base,
        "overrides": canonical_overrides(point.as_dict()),
        "target": workload.target,
        "scale": workload.scale,
        "args": list(workload.args),
    }
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode("utf-8")).hexdigest()
    return digest[:16]


def expand_runs(sweep: Sweep) -> Tuple[List[Run], int]:
    """Every run of the sweep (point-major, workloads in file order) and the duplicate count."""
    points, duplicates = expand_points(sweep)
    runs = [Run(run_id=run_id_for(sweep, point, workload), point=point, workload=workload)
            for point in points for workload in sweep.workloads]
    return runs, duplicates


def swept_keys(points: List[Point]) -> List[str]:
    """Keys whose value differs between points (a key missing from a point counts as a value)."""
    keys: List[str] = []
    for point in points:
        for key, _ in point.overrides:
            if key not in keys:
                keys.append(key)
    missing = object()
    swept = []
    for key in keys:
        values = {set_argument(v) if (v := point.as_dict().get(key, missing)) is not missing
                  else None for point in points}
        if len(values) > 1:
            swept.append(key)
    return swept
