"""`plot`: the chart files exist, are valid PNG and SVG, and say what they show."""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ElementTree

import pandas as pd
import pytest

from conftest import cli
from scgpu_tools.errors import ToolError
from scgpu_tools.plots import make_plots
from scgpu_tools.plots.data import load_results, select_baseline, speedups
from scgpu_tools.plots.pareto import pareto_front

EXPECTED = ["sweep_vs_l2_cache_size_bytes", "sweep_vs_dram_channels", "sweep_speedup",
            "sweep_stalls", "sweep_pareto_config_l2_total_bytes", "sweep_pareto_config_dram_channels"]


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def svg_text(path):
    root = ElementTree.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", f"{path} is not an SVG"
    return "".join(root.itertext())


@pytest.fixture(scope="module")
def plots(example_sweep, tmp_path_factory):
    out, _, _ = example_sweep
    directory = tmp_path_factory.mktemp("plots")
    completed = cli("plot", out, "--out", directory, check=True)
    return directory, completed


def test_every_chart_is_written_as_png_and_svg(plots):
    directory, completed = plots
    written = sorted(p.name for p in directory.iterdir())
    assert written == sorted(f"{name}.{ext}" for name in EXPECTED for ext in ("png", "svg"))
    assert sorted(completed.stdout.split()) == sorted(str(directory / name) for name in written)
    for name in EXPECTED:
        width, height = png_size(directory / f"{name}.png")
        assert width > 400 and height > 200
        svg_text(directory / f"{name}.svg")


def test_titles_and_axes_name_parameters_and_units(plots):
    directory, _ = plots
    text = svg_text(directory / "sweep_vs_l2_cache_size_bytes.svg")
    for expected in ("Metrics against L2 size per slice", "Simulated time (µs)", "64 KiB",
                     "256 KiB", "saxpy", "reduce_tree", "DRAM bandwidth (GB/s)", "left out"):
        assert expected in text, expected
    text = svg_text(directory / "sweep_speedup.svg")
    assert "Speedup over point #0" in text and "timeout" in text and "input_error" in text
    text = svg_text(directory / "sweep_stalls.svg")
    assert "long scoreboard" in text and "share of scheduler cycles (%)" in text
    text = svg_text(directory / "sweep_pareto_config_dram_channels.svg")
    assert "Pareto front" in text and "DRAM channels" in text


def test_speedup_is_relative_to_the_baseline(example_sweep):
    out, _, _ = example_sweep
    results = load_results(str(out))
    base = select_baseline(results, "dram.channels=2,l2.cache.size_bytes=262144")
    assert base == 3
    table = speedups(results, base)
    at_base = table[(table["point"] == 3) & (table["status"] == "passed")]["speedup"]
    assert list(at_base) == [1.0, 1.0]
    saxpy = table[(table["workload"] == "saxpy")].set_index("point")
    assert saxpy.loc[0, "speedup"] == pytest.approx(saxpy.loc[3, "total.simulated_ns"] / saxpy.loc[0, "total.simulated_ns"])
    assert pd.isna(saxpy.loc[4, "speedup"])                  # the timeout has no speedup
    with pytest.raises(ToolError, match="selects 2 points"):
        select_baseline(results, "dram.channels=2")
    with pytest.raises(ToolError, match="no point 42"):
        select_baseline(results, "42")


def test_pareto_front():
    points = [(1, 1.0, "a"), (2, 0.9, "b"), (2, 1.5, "c"), (4, 1.5, "d"), (8, 3.0, "e"), (8, 2.0, "f")]
    assert pareto_front(points) == [(1, 1.0, "a"), (2, 1.5, "c"), (8, 3.0, "e")]
    assert pareto_front([]) == []


def test_options_and_errors(example_sweep, tmp_path):
    out, _, _ = example_sweep
    written = make_plots(str(out), str(tmp_path / "p"), metrics=["gpu.ipc"], baseline="1",
                         costs=["dram.channels"], formats=["svg"], prefix="x_")
    names = sorted(p.split("/")[-1] for p in written)
    assert names == ["x_pareto_dram_channels.svg", "x_speedup.svg", "x_stalls.svg",
                     "x_vs_dram_channels.svg", "x_vs_l2_cache_size_bytes.svg"]
    with pytest.raises(ToolError, match="metric 'gpu.ipx' is not a column.*gpu.ipc"):
        make_plots(str(out), str(tmp_path / "q"), metrics=["gpu.ipx"])
    completed = cli("plot", tmp_path / "nothing")
    assert completed.returncode == 3 and "no results.csv" in completed.stderr
