"""The sweep-file schema: what it accepts, and that every error names FILE:LINE:COL."""

from __future__ import annotations

import textwrap

import pytest

from scgpu_tools.errors import SweepFileError
from scgpu_tools.sweepfile import load_sweep, parse_sweep


def parse(text: str, path: str = "sweep.yaml"):
    return parse_sweep(textwrap.dedent(text).lstrip(), path)


def errors_of(text: str, path: str = "sweep.yaml"):
    with pytest.raises(SweepFileError) as raised:
        parse(text, path)
    return str(raised.value).splitlines()


def test_every_key_is_read(tmp_path):
    (tmp_path / "k.yaml").write_text("ptx: k.ptx\n")
    (tmp_path / "my.yaml").write_text("extends: tiny\n")
    sweep = parse("""
        description: L2 against DRAM
        base: my.yaml
        set: {sm.count: 2, sm.scheduler_policy: lrr}
        grid:
          l2.cache.size_bytes: [65536, 262144]
          dram.channels: [1, 2, 4]
        zip:
          - {dram.standard: [hbm3, gddr6], clocks.dram_clock_mhz: [1309.5, 1750]}
        points:
          - {sm.count: 4}
        workloads:
          - saxpy
          - {name: vector_add, scale: 8, args: [--seed, 3], label: vadd8}
          - k.yaml
        metrics: [gpu.ipc, "stall.*.pct"]
        timeout_s: 90
        threads: 2
        """, str(tmp_path / "sweep.yaml"))
    assert sweep.description == "L2 against DRAM"
    assert sweep.base == "my.yaml" and sweep.base_path == str(tmp_path / "my.yaml")
    assert sweep.config_argument == str(tmp_path / "my.yaml")
    assert sweep.fixed == {"sm.count": 2, "sm.scheduler_policy": "lrr"}
    assert sweep.grid == [("l2.cache.size_bytes", [65536, 262144]), ("dram.channels", [1, 2, 4])]
    assert sweep.zips == [[("dram.standard", ["hbm3", "gddr6"]), ("clocks.dram_clock_mhz", [1309.5, 1750])]]
    assert sweep.points == [{"sm.count": 4}]
    labels = [w.label for w in sweep.workloads]
    assert labels == ["saxpy", "vadd8", "k"]
    assert sweep.workloads[1].scale == 8 and sweep.workloads[1].args == ("--seed", "3")
    assert sweep.workloads[2].launch_file == str(tmp_path / "k.yaml")
    assert sweep.metrics == ["gpu.ipc", "stall.*.pct"]
    assert sweep.timeout_s == 90.0 and sweep.threads == 2
    assert sweep.parameters() == ["sm.count", "sm.scheduler_policy", "l2.cache.size_bytes",
                                  "dram.channels", "dram.standard", "clocks.dram_clock_mhz"]


def test_defaults():
    sweep = parse("workloads: [saxpy]\n")
    assert sweep.base == "tiny" and sweep.base_path is None
    assert sweep.fixed == {} and sweep.grid == [] and sweep.zips == [] and sweep.points == []
    assert sweep.metrics is None and sweep.timeout_s is None and sweep.threads == 1


def test_a_scaled_workload_gets_a_distinct_label():
    sweep = parse("workloads: [saxpy, {name: saxpy, scale: 4}]\n")
    assert [w.label for w in sweep.workloads] == ["saxpy", "saxpy@x4"]


def test_exact_message_format():
    assert errors_of("grdi: {sm.count: [1, 2]}\nworkloads: [saxpy]\n") == [
        "sweep.yaml:1:1: error: unknown key 'grdi' in the sweep file; did you mean 'grid'?"]


@pytest.mark.parametrize("text, expected", [
    # an unknown key, with a suggestion
    ("workloads: [saxpy]\ngird:\n  sm.count: [1]\n", "2:1: error: unknown key 'gird'"),
    # a grid value that is not a list: the value's position
    ("workloads: [saxpy]\ngrid:\n  sm.count: 4\n", "3:13: error: grid: 'sm.count' must be a list"),
    # zipped lists of different lengths: the shorter list is reported
    ("workloads: [saxpy]\nzip:\n  - dram.channels: [1, 2]\n    dram.standard: [hbm3]\n",
     "4:20: error: zip: 'dram.standard' has 1 values but 'dram.channels' has 2"),
    # zip written as a mapping instead of a list of mappings
    ("workloads: [saxpy]\nzip: {dram.channels: [1, 2]}\n", "2:6: error: zip must be a list of mappings"),
    # the same key twice in one mapping (PyYAML would silently keep the last)
    ("workloads: [saxpy]\ngrid:\n  sm.count: [1]\n  sm.count: [2]\n",
     "4:3: error: duplicate key 'sm.count' in grid (first at line 3)"),
    # the same key in set: and grid:
    ("workloads: [saxpy]\nset: {sm.count: 2}\ngrid: {sm.count: [1, 2]}\n",
     "3:8: error: 'sm.count' is already set in set: at line 2"),
    # a repeated value in a grid list
    ("workloads: [saxpy]\ngrid: {sm.count: [1, 2, 1]}\n", "2:25: error: grid: 'sm.count' lists 1 twice"),
    # not a config key
    ("workloads: [saxpy]\nset: {'sm count': 2}\n", "2:7: error: 'sm count' is not a config key"),
    # a nested mapping as a value
    ("workloads: [saxpy]\nset:\n  sm.l1: {size_bytes: 1}\n", "3:10: error: the value of 'sm.l1' must be a single value"),
    # a null value
    ("workloads: [saxpy]\nset: {sm.count: }\n", "2:16: error: 'sm.count' has no value"),
    # workloads missing
    ("grid: {sm.count: [1, 2]}\n", "1:1: error: missing key 'workloads'"),
    # an empty workloads list
    ("workloads: []\n", "1:12: error: workloads is empty"),
    # scale must be positive
    ("workloads:\n  - {name: saxpy, scale: 0}\n", "2:26: error: scale must be a positive integer"),
    # unknown key in a workload
    ("workloads:\n  - {name: saxpy, scael: 2}\n", "2:19: error: unknown key 'scael' in a workload; did you mean 'scale'?"),
    # an option the sweep manages
    ("workloads:\n  - {name: saxpy, args: [--config, hopper]}\n",
     "2:26: error: '--config' is managed by the sweep; use base:"),
    ("workloads:\n  - {name: saxpy, args: ['--timeout=5']}\n",
     "2:26: error: '--timeout' is managed by the sweep; use timeout_s:"),
    # the same workload twice
    ("workloads: [saxpy, saxpy]\n", "1:20: error: workload 'saxpy' is listed twice"),
    # a launch file that does not exist
    ("workloads: [missing/kernel.yaml]\n", "1:13: error: launch file 'missing/kernel.yaml' not found"),
    # a config file that does not exist
    ("base: configs/none.yaml\nworkloads: [saxpy]\n", "1:7: error: config file 'configs/none.yaml' not found"),
    ("workloads: [saxpy]\ntimeout_s: -1\n", "2:12: error: timeout_s must be a positive number"),
    ("workloads: [saxpy]\nthreads: 0\n", "2:10: error: threads must be an integer from 1 to 256"),
    ("workloads: [saxpy]\nmetrics: gpu.ipc\n", "2:10: error: metrics must be a list"),
    # YAML syntax errors keep PyYAML's position
    ("workloads: [saxpy\ngrid: {}\n", "2:5: error: YAML syntax:"),
    ("", "1:1: error: the sweep file is empty"),
    ("- saxpy\n", "1:1: error: the sweep file must be a mapping"),
])
def test_errors_name_line_and_column(text, expected):
    lines = errors_of(text)
    assert any(line.startswith("sweep.yaml:" + expected) for line in lines), lines


def test_scale_on_a_launch_file_is_an_error(tmp_path):
    (tmp_path / "k.yaml").write_text("ptx: k.ptx\n")
    path = tmp_path / "sweep.yaml"
    path.write_text("workloads:\n  - {name: k.yaml, scale: 2}\n")
    with pytest.raises(SweepFileError) as raised:
        load_sweep(str(path))
    assert str(raised.value) == (f"{path}:2:27: error: scale applies to suite workloads; a launch "
                                 f"file sets its own sizes")


def test_all_problems_are_reported_together():
    lines = errors_of("""
        grid:
          sm.count: 2
        zip: {a: [1]}
        threads: many
        """)
    assert [line.split(": error: ")[0] for line in lines] == [
        "sweep.yaml:2:13", "sweep.yaml:3:6", "sweep.yaml:1:1", "sweep.yaml:4:10"]


def test_unreadable_file(tmp_path):
    with pytest.raises(SweepFileError) as raised:
        load_sweep(str(tmp_path / "nope.yaml"))
    assert str(raised.value).startswith(f"{tmp_path / 'nope.yaml'}:1:1: error: cannot read")
