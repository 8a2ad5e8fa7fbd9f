"""Read a sweep file (YAML) and check it against the sweep schema.

The file is read as a node tree (``yaml.compose``) rather than as plain Python data, because the
nodes carry the line and column each value was written at: every problem is reported as
``FILE:LINE:COL: error: ...`` and all problems of a file are reported together, so a user fixes
them in one pass.

Schema (docs/design-exploration.md has the full reference)::

    description: free text                      # optional
    base: tiny                                  # config name or YAML path (default: tiny)
    set: {sm.count: 2}                          # fixed overrides, applied to every point
    grid: {l2.cache.size_bytes: [65536, 262144], dram.channels: [1, 2]}   # cartesian product
    zip:                                        # each entry: equal-length lists stepped together
      - {dram.standard: [hbm3, gddr6], clocks.dram_clock_mhz: [1309.5, 1750]}
    points: [{sm.count: 4}]                     # explicit extra points
    workloads: [saxpy, {name: vector_add, scale: 8, args: [--seed, "3"], label: vadd8}]
    metrics: [gpu.ipc, "stall.*.pct"]           # statistic names or globs (default: all)
    timeout_s: 120                              # wall-clock limit of one run
    threads: 1                                  # host threads of one run
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import yaml

from .errors import Location, SweepFileError

TOP_LEVEL_KEYS = ("description", "base", "set", "grid", "zip", "points", "workloads", "metrics",
                  "timeout_s", "threads")
WORKLOAD_KEYS = ("name", "scale", "args", "label")

# A dotted config path as `scgpu run --set` takes it; an index selects one instance
# (`l2[3].impl`, `dram[0].impl`).
CONFIG_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[\d+\])?(\.[A-Za-z_][A-Za-z0-9_]*(\[\d+\])?)*$")

# Options the sweep itself passes to `scgpu run`; in a workload's `args` they would either clash
# (the simulator refuses a repeated option) or hide a parameter from the results table.
MANAGED_OPTIONS = {
    "-c": "base:", "--config": "base:", "--set": "set:, grid:, zip: or points:",
    "--stats-json": "nothing (the sweep writes it)", "-q": "nothing (the sweep runs quietly)",
    "--quiet": "nothing (the sweep runs quietly)", "--scale": "scale:", "--timeout": "timeout_s:",
    "--threads": "threads:",
}

Value = Any  # str, int, float or bool: what a YAML scalar becomes


@dataclass(frozen=True)
class Workload:
    """One entry of `workloads:`: a suite workload or a launch file."""

    target: str                 # as written in the sweep file
    launch_file: Optional[str]  # absolute path for a launch file, None for a suite workload
    label: str                  # the name used in results (unique within the sweep)
    scale: Optional[int]        # --scale, None when not given
    args: Tuple[str, ...]       # extra `scgpu run` arguments
    location: Location

    @property
    def is_launch_file(self) -> bool:
        return self.launch_file is not None


@dataclass
class Sweep:
    """A checked sweep file: what to vary and what to run."""

    path: str
    base: str                                   # as written (name or path)
    base_path: Optional[str]                    # absolute path when `base` is a file
    fixed: Dict[str, Value]                     # `set:`
    grid: List[Tuple[str, List[Value]]]         # `grid:` in file order
    zips: List[List[Tuple[str, List[Value]]]]   # `zip:`: one list of (key, values) per group
    points: List[Dict[str, Value]]              # `points:`
    workloads: List[Workload]
    metrics: Optional[List[str]]
    timeout_s: Optional[float]
    threads: int
    description: str = ""
    key_locations: Dict[str, Location] = field(default_factory=dict)
    # Where each (key, value) is first written, to point at it when the simulator refuses it.
    value_locations: Dict[Tuple[str, str, Value], Location] = field(default_factory=dict)

    @property
    def config_argument(self) -> str:
        """What `--config` gets: the resolved path of a config file, or the config name."""
        return self.base_path or self.base

    def parameters(self) -> List[str]:
        """Every config key any point overrides, in the order the file introduces them."""
        keys: List[str] = list(self.fixed)
        for key, _ in self.grid:
            keys.append(key)
        for group in self.zips:
            keys.extend(key for key, _ in group)
        for point in self.points:
            keys.extend(point)
        return list(dict.fromkeys(keys))


def looks_like_path(text: str) -> bool:
    """The simulator's rule: a target or config ending in .yaml/.yml (or with a slash) is a file."""
    return text.endswith((".yaml", ".yml")) or "/" in text


def load_sweep(path: str) -> Sweep:
    """Parse and check a sweep file; raise SweepFileError listing every problem."""
    try:
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
    except (OSError, UnicodeDecodeError) as error:
        raise SweepFileError([(Location(path, 1, 1), f"cannot read the sweep file: {error}")])
    return parse_sweep(text, path)


def parse_sweep(text: str, path: str) -> Sweep:
    """Parse sweep-file text; `path` names it in messages and anchors relative paths."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = Location(path, mark.line + 1, mark.column + 1) if mark else Location(path, 1, 1)
        problem = error.problem or error.context or "invalid YAML"
        raise SweepFileError([(where, f"YAML syntax: {problem}")])
    except yaml.YAMLError as error:
        raise SweepFileError([(Location(path, 1, 1), f"YAML: {error}")])
    return _SweepParser(path).parse(root)


class _SweepParser:
    """Walks the node tree, converts values and collects problems with their locations."""

    def __init__(self, path: str):
        self.path = path
        self.directory = os.path.dirname(os.path.abspath(path))
        self.problems: List[Tuple[Location, str]] = []
        # Scalars are converted by PyYAML's own safe constructor so that `true`, `0x10`, `1.5`
        # mean exactly what they mean to yaml.safe_load.
        self._constructor = yaml.SafeLoader("")
        # Which section first set each override key, to refuse the same key in two sections.
        self._owner: Dict[str, Tuple[str, Location]] = {}
        self._values: Dict[Tuple[str, str, Value], Location] = {}

    # -- helpers -------------------------------------------------------------------------------

    def where(self, node: yaml.Node) -> Location:
        return Location(self.path, node.start_mark.line + 1, node.start_mark.column + 1)

    def error(self, node: yaml.Node, message: str) -> None:
        self.problems.append((self.where(node), message))

    def scalar(self, node: yaml.Node) -> Any:
        try:
            return self._constructor.construct_object(node, deep=True)
        except yaml.YAMLError as error:
            self.error(node, f"cannot read this value: {getattr(error, 'problem', error)}")
            return None

    def mapping_items(self, node: yaml.Node, what: str) -> List[Tuple[str, yaml.Node, yaml.Node]]:
        """Items of a mapping node with string keys; reports duplicates (PyYAML keeps the last)."""
        if not isinstance(node, yaml.MappingNode):
            self.error(node, f"{what} must be a mapping (key: value)")
            return []
        items, seen = [], {}
        for key_node, value_node in node.value:
            key = self.scalar(key_node) if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str):
                self.error(key_node, f"keys of {what} must be strings")
                continue
            if key in seen:
                first = seen[key]
                self.error(key_node, f"duplicate key '{key}' in {what} (first at line {first.line})")
                continue
            seen[key] = self.where(key_node)
            items.append((key, key_node, value_node))
        return items

    def sequence(self, node: yaml.Node, what: str) -> List[yaml.Node]:
        if not isinstance(node, yaml.SequenceNode):
            self.error(node, f"{what} must be a list")
            return []
        return list(node.value)

    def check_unknown(self, key: str, key_node: yaml.Node, allowed: Tuple[str, ...], what: str) -> bool:
        if key in allowed:
            return True
        close = difflib.get_close_matches(key, allowed, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else f" (expected one of: {', '.join(allowed)})"
        self.error(key_node, f"unknown key '{key}' in {what}{hint}")
        return False

    def config_value(self, node: yaml.Node, key: str) -> Tuple[bool, Value]:
        """A value for `--set KEY=VALUE`: a scalar (string, number or boolean)."""
        if not isinstance(node, yaml.ScalarNode):
            self.error(node, f"the value of '{key}' must be a single value (string, number or "
                             f"boolean); write nested keys with dots, e.g. '{key}.size_bytes'")
            return False, None
        value = self.scalar(node)
        if value is None:
            self.error(node, f"'{key}' has no value")
            return False, None
        if not isinstance(value, (str, int, float, bool)):
            self.error(node, f"the value of '{key}' must be a string, number or boolean, "
                             f"not {type(value).__name__}")
            return False, None
        self._values.setdefault((key, type(value).__name__, value), self.where(node))
        return True, value

    def config_key(self, key: str, key_node: yaml.Node, section: str, exclusive: bool) -> bool:
        """Check a dotted config key and that no other section already sets it."""
        if not CONFIG_KEY_RE.match(key):
            self.error(key_node, f"'{key}' is not a config key (a dotted path such as "
                                 f"'l2.cache.size_bytes')")
            return False
        if exclusive:
            owner = self._owner.get(key)
            if owner is not None:
                other_section, other = owner
                self.error(key_node, f"'{key}' is already set in {other_section}: at line "
                                     f"{other.line}; a key may appear in only one of set, grid "
                                     f"and zip")
                return False
            self._owner[key] = (section, self.where(key_node))
        return True

    def value_list(self, node: yaml.Node, key: str, section: str) -> Optional[List[Value]]:
        if not isinstance(node, yaml.SequenceNode):
            self.error(node, f"{section}: '{key}' must be a list of values (for one fixed value "
                             f"use set:)")
            return None
        if not node.value:
            self.error(node, f"{section}: '{key}' has an empty list")
            return None
        values, ok = [], True
        for item in node.value:
            good, value = self.config_value(item, key)
            if not good:
                ok = False
                continue
            if any(type(value) is type(v) and value == v for v in values):
                self.error(item, f"{section}: '{key}' lists {value!r} twice")
                ok = False
                continue
            values.append(value)
        return values if ok else None

    # -- sections ------------------------------------------------------------------------------

    def parse(self, root: Optional[yaml.Node]) -> Sweep:
        if root is None:
            self.problems.append((Location(self.path, 1, 1),
                                  "the sweep file is empty; it needs at least 'workloads:'"))
            raise SweepFileError(self.problems)
        sections: Dict[str, Tuple[yaml.Node, yaml.Node]] = {}
        for key, key_node, value_node in self.mapping_items(root, "the sweep file"):
            if self.check_unknown(key, key_node, TOP_LEVEL_KEYS, "the sweep file"):
                sections[key] = (key_node, value_node)
        if not isinstance(root, yaml.MappingNode):
            raise SweepFileError(self.problems)

        def node(name):
            return sections[name][1] if name in sections else None

        # Sections are read in a fixed order (set before grid before zip) so that "already set
        # in" messages always name the earlier section.
        description = self.parse_description(node("description"))
        base, base_path = self.parse_base(node("base"))
        fixed = self.parse_fixed(node("set"))
        grid = self.parse_grid(node("grid"))
        zips = self.parse_zip(node("zip"))
        points = self.parse_points(node("points"))
        if "workloads" not in sections:
            self.error(root, "missing key 'workloads' (the list of workloads or launch files to run)")
            workloads = []
        else:
            workloads = self.parse_workloads(node("workloads"))
        metrics = self.parse_metrics(node("metrics"))
        timeout_s = self.parse_timeout(node("timeout_s"))
        threads = self.parse_threads(node("threads"))
        if self.problems:
            raise SweepFileError(self.problems)
        key_locations = {key: location for key, (_, location) in self._owner.items()}
        return Sweep(path=self.path, base=base, base_path=base_path, fixed=fixed, grid=grid,
                     zips=zips, points=points, workloads=workloads, metrics=metrics,
                     timeout_s=timeout_s, threads=threads, description=description,
                     key_locations=key_locations, value_locations=dict(self._values))

    def parse_description(self, node) -> str:
        if node is None:
            return ""
        value = self.scalar(node) if isinstance(node, yaml.ScalarNode) else None
        if not isinstance(value, str):
            self.error(node, "description must be text")
            return ""
        return value

    def parse_base(self, node) -> Tuple[str, Optional[str]]:
        if node is None:
            return "tiny", None
        value = self.scalar(node) if isinstance(node, yaml.ScalarNode) else None
        if not isinstance(value, str) or not value:
            self.error(node, "base must be a config name (tiny, hopper, ...) or the path of a "
                             "config YAML file")
            return "tiny", None
        if not looks_like_path(value):
            return value, None
        resolved = os.path.normpath(os.path.join(self.directory, value))
        if not os.path.isfile(resolved):
            self.error(node, f"config file '{value}' not found (looked for {resolved})")
        return value, resolved

    def parse_fixed(self, node) -> Dict[str, Value]:
        fixed: Dict[str, Value] = {}
        if node is None:
            return fixed
        for key, key_node, value_node in self.mapping_items(node, "set"):
            if self.config_key(key, key_node, "set", exclusive=True):
                good, value = self.config_value(value_node, key)
                if good:
                    fixed[key] = value
        return fixed

    def parse_grid(self, node) -> List[Tuple[str, List[Value]]]:
        grid = []
        if node is None:
            return grid
        for key, key_node, value_node in self.mapping_items(node, "grid"):
            if self.config_key(key, key_node, "grid", exclusive=True):
                values = self.value_list(value_node, key, "grid")
                if values is not None:
                    grid.append((key, values))
        return grid

    def parse_zip(self, node) -> List[List[Tuple[str, List[Value]]]]:
        groups = []
        if node is None:
            return groups
        if isinstance(node, yaml.MappingNode):
            self.error(node, "zip must be a list of mappings: write '- {a: [...], b: [...]}'")
            return groups
        for group_node in self.sequence(node, "zip"):
            group, lengths = [], []
            items = self.mapping_items(group_node, "a zip entry")
            if isinstance(group_node, yaml.MappingNode) and not items and not group_node.value:
                self.error(group_node, "a zip entry needs at least one key")
            for key, key_node, value_node in items:
                if not self.config_key(key, key_node, "zip", exclusive=True):
                    continue
                values = self.value_list(value_node, key, "zip")
                if values is None:
                    continue
                if lengths and len(values) != lengths[0][1]:
                    first_key, first_length = lengths[0]
                    self.error(value_node, f"zip: '{key}' has {len(values)} values but "
                                           f"'{first_key}' has {first_length}; lists zipped "
                                           f"together must have the same length")
                    continue
                lengths.append((key, len(values)))
                group.append((key, values))
            if group:
                groups.append(group)
        return groups

    def parse_points(self, node) -> List[Dict[str, Value]]:
        points = []
        if node is None:
            return points
        for point_node in self.sequence(node, "points"):
            point: Dict[str, Value] = {}
            for key, key_node, value_node in self.mapping_items(point_node, "a point"):
                if self.config_key(key, key_node, "points", exclusive=False):
                    good, value = self.config_value(value_node, key)
                    if good:
                        point[key] = value
                        # Remember where a key that only points set is first written.
                        self._owner.setdefault(key, ("points", self.where(key_node)))
            points.append(point)
        return points

    def parse_workloads(self, node) -> List[Workload]:
        workloads: List[Workload] = []
        items = self.sequence(node, "workloads")
        if isinstance(node, yaml.SequenceNode) and not items:
            self.error(node, "workloads is empty; list at least one workload or launch file")
        labels: Dict[str, Location] = {}
        identities: Dict[tuple, Location] = {}
        for item in items:
            workload = self.parse_workload(item)
            if workload is None:
                continue
            identity = (workload.target, workload.scale, workload.args)
            if identity in identities:
                self.error(item, f"workload '{workload.target}' is listed twice with the same "
                                 f"scale and args (first at line {identities[identity].line})")
                continue
            if workload.label in labels:
                self.error(item, f"two workloads are both labelled '{workload.label}' (first at "
                                 f"line {labels[workload.label].line}); give one a 'label:'")
                continue
            identities[identity] = workload.location
            labels[workload.label] = workload.location
            workloads.append(workload)
        return workloads

    def parse_workload(self, node) -> Optional[Workload]:
        name_node, scale_node, args_node, label_node = node, None, None, None
        if isinstance(node, yaml.MappingNode):
            fields = {}
            for key, key_node, value_node in self.mapping_items(node, "a workload"):
                if self.check_unknown(key, key_node, WORKLOAD_KEYS, "a workload"):
                    fields[key] = value_node
            if "name" not in fields:
                self.error(node, "a workload needs 'name:' (a suite workload or a launch file path)")
                return None
            name_node = fields["name"]
            scale_node, args_node, label_node = fields.get("scale"), fields.get("args"), fields.get("label")
        elif not isinstance(node, yaml.ScalarNode):
            self.error(node, "a workload is a name, or a mapping with name:, scale:, args:, label:")
            return None
        name = self.scalar(name_node) if isinstance(name_node, yaml.ScalarNode) else None
        if not isinstance(name, str) or not name:
            self.error(name_node, "a workload name must be text: a suite workload (see `scgpu "
                                  "list`) or a launch file ending in .yaml")
            return None
        launch_file = None
        if looks_like_path(name):
            launch_file = os.path.normpath(os.path.join(self.directory, name))
            if not os.path.isfile(launch_file):
                self.error(name_node, f"launch file '{name}' not found (looked for {launch_file})")
                return None
        elif not re.match(r"^[A-Za-z0-9_.-]+$", name):
            self.error(name_node, f"'{name}' is not a workload name")
            return None

        scale = None
        if scale_node is not None:
            value = self.scalar(scale_node) if isinstance(scale_node, yaml.ScalarNode) else None
            if launch_file is not None:
                self.error(scale_node, "scale applies to suite workloads; a launch file sets its "
                                       "own sizes")
                return None
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                self.error(scale_node, "scale must be a positive integer")
                return None
            scale = value

        args = self.parse_args(args_node)
        if args is None:
            return None

        label = None
        if label_node is not None:
            value = self.scalar(label_node) if isinstance(label_node, yaml.ScalarNode) else None
            if not isinstance(value, str) or not value.strip():
                self.error(label_node, "label must be non-empty text")
                return None
            label = value
        if label is None:
            stem = os.path.splitext(os.path.basename(name))[0] if launch_file else name
            label = stem if scale in (None, 1) else f"{stem}@x{scale}"
        return Workload(target=name, launch_file=launch_file, label=label, scale=scale,
                        args=tuple(args), location=self.where(node))

    def parse_args(self, node) -> Optional[List[str]]:
        if node is None:
            return []
        if not isinstance(node, yaml.SequenceNode):
            self.error(node, "args must be a list of command-line arguments, e.g. "
                             "[--seed, \"3\", --arch, sm_80]")
            return None
        args = []
        for item in node.value:
            value = self.scalar(item) if isinstance(item, yaml.ScalarNode) else None
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                self.error(item, "each argument must be a single word (text or number)")
                return None
            text = str(value)
            option = text.split("=", 1)[0]
            if option in MANAGED_OPTIONS:
                self.error(item, f"'{option}' is managed by the sweep; use {MANAGED_OPTIONS[option]}")
                return None
            args.append(text)
        return args

    def parse_metrics(self, node) -> Optional[List[str]]:
        if node is None:
            return None
        metrics = []
        for item in self.sequence(node, "metrics"):
            value = self.scalar(item) if isinstance(item, yaml.ScalarNode) else None
            if not isinstance(value, str) or not value:
                self.error(item, "a metric is a statistic name or a glob such as 'stall.*.pct'")
                continue
            metrics.append(value)
        return metrics

    def parse_timeout(self, node) -> Optional[float]:
        if node is None:
            return None
        value = self.scalar(node) if isinstance(node, yaml.ScalarNode) else None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            self.error(node, "timeout_s must be a positive number of seconds")
            return None
        return float(value)

    def parse_threads(self, node) -> int:
        if node is None:
            return 1
        value = self.scalar(node) if isinstance(node, yaml.ScalarNode) else None
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 256:
            self.error(node, "threads must be an integer from 1 to 256")
            return 1
        return value
