"""Expansion of grid x zip (+ points) into points, and the stability of run ids."""

from __future__ import annotations

import textwrap

from scgpu_tools.expand import expand_points, expand_runs, set_argument, swept_keys
from scgpu_tools.sweepfile import parse_sweep


def parse(text: str):
    return parse_sweep(textwrap.dedent(text).lstrip(), "sweep.yaml")


GRID_AND_ZIP = """
    set: {sm.count: 2}
    grid:
      l2.cache.size_bytes: [65536, 262144]
      dram.channels: [1, 2, 4]
    zip:
      - {dram.standard: [hbm3, gddr6], clocks.dram_clock_mhz: [1309.5, 1750]}
    workloads: [saxpy, {name: vector_add, scale: 4}]
    """


def test_grid_times_zip_is_a_product_with_zipped_keys_paired():
    points, duplicates = expand_points(parse(GRID_AND_ZIP))
    assert duplicates == 0
    assert len(points) == 2 * 3 * 2
    combos = [p.as_dict() for p in points]
    # every combination once; the zip group moves as one axis, fastest (last)
    assert combos[0] == {"sm.count": 2, "l2.cache.size_bytes": 65536, "dram.channels": 1,
                         "dram.standard": "hbm3", "clocks.dram_clock_mhz": 1309.5}
    assert combos[1] == {"sm.count": 2, "l2.cache.size_bytes": 65536, "dram.channels": 1,
                         "dram.standard": "gddr6", "clocks.dram_clock_mhz": 1750}
    assert combos[2]["dram.channels"] == 2 and combos[2]["dram.standard"] == "hbm3"
    assert combos[-1] == {"sm.count": 2, "l2.cache.size_bytes": 262144, "dram.channels": 4,
                          "dram.standard": "gddr6", "clocks.dram_clock_mhz": 1750}
    keys = {(c["l2.cache.size_bytes"], c["dram.channels"], c["dram.standard"]) for c in combos}
    assert len(keys) == 12
    # zipped values never mix
    assert all((c["dram.standard"], c["clocks.dram_clock_mhz"]) in {("hbm3", 1309.5), ("gddr6", 1750)}
               for c in combos)
    assert [p.index for p in points] == list(range(12))


def test_points_follow_the_grid_and_override_set():
    sweep = parse("""
        set: {sm.count: 2, l2.cache.size_bytes: 65536}
        grid: {dram.channels: [1, 2]}
        points:
          - {sm.count: 8}
          - {dram.channels: 1}
        workloads: [saxpy]
        """)
    points, duplicates = expand_points(sweep)
    # the second explicit point equals grid point 0 and is dropped
    assert duplicates == 1
    assert [p.as_dict() for p in points] == [
        {"sm.count": 2, "l2.cache.size_bytes": 65536, "dram.channels": 1},
        {"sm.count": 2, "l2.cache.size_bytes": 65536, "dram.channels": 2},
        {"sm.count": 8, "l2.cache.size_bytes": 65536},
    ]
    assert swept_keys(points) == ["sm.count", "dram.channels"]


def test_no_grid_means_one_point():
    points, _ = expand_points(parse("set: {sm.count: 2}\nworkloads: [saxpy]\n"))
    assert [p.as_dict() for p in points] == [{"sm.count": 2}]
    points, _ = expand_points(parse("workloads: [saxpy]\n"))
    assert [p.as_dict() for p in points] == [{}]


def test_runs_cross_points_with_workloads():
    runs, _ = expand_runs(parse(GRID_AND_ZIP))
    assert len(runs) == 12 * 2
    assert [r.workload.label for r in runs[:4]] == ["saxpy", "vector_add@x4", "saxpy", "vector_add@x4"]
    assert len({r.run_id for r in runs}) == 24


def test_run_ids_survive_edits_that_do_not_touch_the_run():
    before = {(r.point.as_dict()["dram.channels"], r.point.as_dict()["dram.standard"],
               r.point.as_dict()["l2.cache.size_bytes"], r.workload.label): r.run_id
              for r in expand_runs(parse(GRID_AND_ZIP))[0]}
    # a new grid value and reordered keys
    edited = GRID_AND_ZIP.replace("[1, 2, 4]", "[1, 2, 4, 8]").replace(
        "set: {sm.count: 2}", "set: {sm.count: 2}\n    description: edited")
    after = {(r.point.as_dict()["dram.channels"], r.point.as_dict()["dram.standard"],
              r.point.as_dict()["l2.cache.size_bytes"], r.workload.label): r.run_id
             for r in expand_runs(parse(edited))[0]}
    assert len(after) == len(before) + 2 * 2 * 2
    for key, run_id in before.items():
        assert after[key] == run_id
    # what does change a run changes its id
    rescaled = GRID_AND_ZIP.replace("scale: 4", "scale: 8")
    changed = {r.run_id for r in expand_runs(parse(rescaled))[0]}
    assert len(changed & set(before.values())) == 12      # only the saxpy runs are the same


def test_set_argument_keeps_yaml_meaning():
    assert set_argument(True) == "true"
    assert set_argument(4) == "4"
    assert set_argument(1309.5) == "1309.5"
    assert set_argument("gddr6") == "gddr6"
    assert set_argument("4") == "'4'"          # a quoted number stays a string
    assert set_argument("a: b") == "'a: b'"
