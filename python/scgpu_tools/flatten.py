"""Turn one `--stats-json` document into flat name -> number maps.

The simulator's statistics are run-wide (all launches of a workload together): `metrics`
(derived values such as `gpu.ipc`, `stall.long_scoreboard.pct`), `counters` (raw per-instance
counts such as `gpu.sm[3].l1.hits`) and `histograms`. Flattened:

* metrics and counters keep their names;
* a histogram `NAME` becomes `NAME.samples`, `NAME.mean`, `NAME.max`;
* every counter with an instance index gets a sum over its instances, named with `[*]`
  (`gpu.sm[*].l1.hits`, `gpu.sm[*].sched[*].stall.wait`), so that configs with different SM or
  channel counts have comparable columns.

Order: metrics, histogram summaries, instance sums, then counters in natural order (sm[2]
before sm[10]), which is the column order of the results table.
"""

from __future__ import annotations

import re
from typing import Dict, Iterable, List, Optional

INDEX_RE = re.compile(r"\[\d+\]")


def natural_key(name: str):
    """Sort key that orders embedded numbers numerically: sm[2] < sm[10]."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def instance_pattern(name: str) -> str:
    """`gpu.sm[3].sched[1].issued` -> `gpu.sm[*].sched[*].issued`."""
    return INDEX_RE.sub("[*]", name)


def components(stats: Optional[dict]) -> dict:
    """The `components` part of the statistics registry (empty in functional mode)."""
    if not isinstance(stats, dict):
        return {}
    registry = stats.get("stats")
    if not isinstance(registry, dict):
        return {}
    found = registry.get("components")
    return found if isinstance(found, dict) else {}


def _numbers(mapping) -> Dict[str, float]:
    if not isinstance(mapping, dict):
        return {}
    return {name: value for name, value in mapping.items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)}


def flatten_stats(stats: Optional[dict]) -> Dict[str, float]:
    """All statistics of one run as one ordered name -> number map."""
    parts = components(stats)
    metrics = _numbers(parts.get("metrics"))
    counters = _numbers(parts.get("counters"))
    flat: Dict[str, float] = {}
    for name in sorted(metrics):
        flat[name] = metrics[name]
    histograms = parts.get("histograms")
    if isinstance(histograms, dict):
        for name in sorted(histograms):
            histogram = histograms[name]
            if isinstance(histogram, dict):
                for field in ("samples", "mean", "max"):
                    if isinstance(histogram.get(field), (int, float)):
                        flat[f"{name}.{field}"] = histogram[field]
    sums: Dict[str, float] = {}
    for name, value in counters.items():
        if INDEX_RE.search(name):
            pattern = instance_pattern(name)
            sums[pattern] = sums.get(pattern, 0) + value
    for name in sorted(sums, key=natural_key):
        flat[name] = sums[name]
    for name in sorted(counters, key=natural_key):
        flat[name] = counters[name]
    return flat


def config_value(config: Optional[dict], dotted: str):
    """A value of the effective config by dotted path (None when absent)."""
    node = config
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node if not isinstance(node, (dict, list)) else None


def escape_glob(pattern: str) -> str:
    """fnmatch treats [...] as a character class; stat names use brackets literally."""
    return pattern.replace("[", "[[]")


def select_columns(columns: Iterable[str], patterns: List[str]):
    """Columns named by `patterns` (exact names first, then globs); and the unmatched patterns."""
    import fnmatch

    columns = list(columns)
    available = set(columns)
    chosen, unmatched = set(), []
    for pattern in patterns:
        if pattern in available:
            chosen.add(pattern)
            continue
        matches = [name for name in columns if fnmatch.fnmatchcase(name, escape_glob(pattern))]
        if not matches:
            unmatched.append(pattern)
        chosen.update(matches)
    return [name for name in columns if name in chosen], unmatched
