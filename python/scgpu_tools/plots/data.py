"""Load a results directory into the shapes the charts need.

The table has one row per kernel launch; charts compare runs, so `runs` keeps one row per run
(the run-wide statistics and `total.*` columns are the same on every launch row of a run).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import pandas as pd

from ..errors import ToolError
from ..units import short_parameter


@dataclass
class SweepResults:
    directory: str
    frame: pd.DataFrame                     # the whole table
    runs: pd.DataFrame                      # one row per run, in table order
    parameters: List[str]                   # config keys the sweep overrides
    swept: List[str]                        # those that take more than one value
    workloads: List[str]                    # workload labels in sweep order
    point_labels: Dict[int, str] = field(default_factory=dict)
    description: Dict = field(default_factory=dict)
    dependent: Dict[str, str] = field(default_factory=dict)   # zipped key -> the group's first key

    @property
    def passed(self) -> pd.DataFrame:
        return self.runs[self.runs["status"] == "passed"]

    @property
    def not_passed(self) -> pd.DataFrame:
        return self.runs[self.runs["status"] != "passed"]

    @property
    def varied(self) -> List[str]:
        """Swept parameters that differ between runs that passed: the ones worth an axis."""
        passed = self.passed
        return [key for key in self.swept if key not in self.dependent and
                passed[key].astype(str).nunique(dropna=False) > 1]

    def points(self) -> List[int]:
        return sorted(int(point) for point in self.runs["point"].dropna().unique())


def _infer_parameters(frame: pd.DataFrame) -> List[str]:
    """Without sweep.json: the columns between the identity columns and `launch.*`."""
    columns = list(frame.columns)
    start = columns.index("host") + 1 if "host" in columns else 0
    parameters = []
    for name in columns[start:]:
        if name.startswith(("launch.", "total.", "config.")):
            break
        parameters.append(name)
    return parameters


def load_results(directory: str) -> SweepResults:
    path = os.path.join(directory, "results.csv")
    if not os.path.isfile(path):
        raise ToolError(f"{directory}: no results.csv (run `scgpu_tools sweep SWEEP.yaml --out "
                        f"{directory}` first)")
    frame = pd.read_csv(path, low_memory=False)
    description: Dict = {}
    described = os.path.join(directory, "sweep.json")
    if os.path.isfile(described):
        with open(described, encoding="utf-8") as stream:
            description = json.load(stream)
    parameters = [p for p in description.get("parameters", _infer_parameters(frame)) if p in frame.columns]
    runs = frame.drop_duplicates("run_id", keep="first").reset_index(drop=True)
    swept = [key for key in parameters if runs[key].astype(str).nunique(dropna=False) > 1]
    workloads = [w["label"] for w in description.get("workloads", [])] or list(dict.fromkeys(runs["workload"]))
    workloads = [w for w in workloads if w in set(runs["workload"])]
    dependent = {key: group[0] for group in description.get("zip_groups", []) for key in group[1:]}
    results = SweepResults(directory=directory, frame=frame, runs=runs, parameters=parameters,
                           swept=swept, workloads=workloads, description=description,
                           dependent=dependent)
    results.point_labels = point_labels(runs, [k for k in swept if k not in dependent])
    return results


def point_labels(runs: pd.DataFrame, swept: List[str]) -> Dict[int, str]:
    """'#3 L2 64 KiB, 2 ch': the point index and its parameter values.

    Parameters that vary between passed runs are always shown; one that only a failed point
    changes (`limits.cycles_per_launch: 2000` to provoke a timeout) only on that point.
    """
    passed = runs[runs["status"] == "passed"]
    varied = [k for k in swept if passed[k].astype(str).nunique(dropna=False) > 1]
    common = {k: passed[k].iloc[0] for k in swept if k not in varied and not passed.empty}
    labels = {}
    for point, group in runs.groupby("point", sort=True):
        row = group.iloc[0]
        shown = [key for key in swept if key in varied or
                 (key in common and str(row[key]) != str(common[key]))]
        values = ", ".join(short_parameter(key, _plain(row[key])) for key in shown)
        labels[int(point)] = f"#{int(point)} {values}".strip()
    return labels


def _plain(value):
    """numpy scalars to Python ones, so that formatting sees ints as ints."""
    return value.item() if hasattr(value, "item") else value


def select_baseline(results: SweepResults, spec: Optional[str]) -> int:
    """The baseline point: an index, or KEY=VALUE pairs that pick exactly one point."""
    points = results.points()
    if not points:
        raise ToolError("the results have no points")
    if spec is None:
        return points[0]
    if spec.strip().lstrip("#").isdigit():
        index = int(spec.strip().lstrip("#"))
        if index not in points:
            raise ToolError(f"--baseline {spec}: no point {index} (points {points[0]}..{points[-1]})")
        return index
    candidates = results.runs
    for pair in spec.split(","):
        if "=" not in pair:
            raise ToolError(f"--baseline {spec}: expected a point index or KEY=VALUE[,KEY=VALUE]")
        key, value = (part.strip() for part in pair.split("=", 1))
        if key not in candidates.columns:
            raise ToolError(f"--baseline {spec}: no column '{key}' (parameters: "
                            f"{', '.join(results.parameters)})")
        candidates = candidates[candidates[key].astype(str).isin({value, _numeric_text(value)})]
    chosen = sorted(int(p) for p in candidates["point"].unique())
    if len(chosen) != 1:
        found = "no point" if not chosen else f"{len(chosen)} points ({', '.join(map(str, chosen))})"
        raise ToolError(f"--baseline {spec}: selects {found}; it must select exactly one")
    return chosen[0]


def _numeric_text(value: str) -> str:
    """'65536' also matches a column pandas read as float ('65536.0')."""
    try:
        return str(float(value))
    except ValueError:
        return value


def speedups(results: SweepResults, baseline: int, time_column: str = "total.simulated_ns") -> pd.DataFrame:
    """Per run: speedup = baseline time / time, per workload (NaN where either did not pass)."""
    runs = results.runs.copy()
    passed = runs["status"] == "passed"
    base = runs[(runs["point"] == baseline) & passed].set_index("workload")[time_column]
    runs["speedup"] = [
        base[workload] / time if passed_row and workload in base.index and time else float("nan")
        for workload, time, passed_row in zip(runs["workload"], runs[time_column], passed)]
    return runs
