"""`report`: one self-contained HTML page with inline SVG charts, from a real --stats-json file."""

from __future__ import annotations

import copy
import json
import re
import subprocess

import pytest

from conftest import cli
from scgpu_tools.report import build_report
from scgpu_tools.report import derive


@pytest.fixture(scope="module")
def stats_files(scgpu, tmp_path_factory):
    directory = tmp_path_factory.mktemp("stats")
    runs = {
        "timing": ["reduce_tree", "--set", "sm.count=2"],
        "functional": ["saxpy", "--mode", "functional"],
        "fault": ["saxpy", "--set", "limits.cycles_per_launch=1000", "--fault-trace-cycles", "0"],
    }
    paths = {}
    for name, arguments in runs.items():
        path = directory / f"{name}.json"
        subprocess.run([scgpu, "run", *arguments, "--config", "tiny", "--quiet", "--stats-json",
                        str(path)], cwd=str(directory), capture_output=True, check=False, timeout=120)
        assert path.is_file(), name
        paths[name] = path
    return paths


def load(path):
    return json.loads(path.read_text())


def test_the_page_has_every_section_and_inline_charts(stats_files, tmp_path):
    out = tmp_path / "report.html"
    completed = cli("report", stats_files["timing"], "-o", out, check=True)
    assert completed.stdout.strip() == str(out)
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>")
    for section in ("summary", "launches", "kernels", "stalls", "memory", "sms", "timeseries",
                    "config", "counters"):
        assert f'<section id="{section}">' in page, section
    # charts: launches, kernels, stalls, DRAM, L2, per-SM heatmap; all inline, nothing fetched
    assert page.count("<svg") >= 6
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "Per-SM activity (2 SMs" in page
    # the launch table has one row per launch
    stats = load(stats_files["timing"])
    launches_table = page.split('id="launches"><thead>')[1].split("</table>")[0]
    assert launches_table.count("<tr>") - 1 == len(stats["launches"]) == 2
    assert "No time series" in page and "samples" in page
    assert '<span class="badge PASSED">PASSED</span>' in page


def test_samples_become_a_time_series_chart(stats_files):
    stats = load(stats_files["timing"])
    stats["samples"] = [{"core_cycles": 1000 * i, "ipc": 0.5 + 0.1 * i,
                         "dram": {"bytes": 4096 * i * i}, "gpu.sm[0].x": 1} for i in range(8)]
    page, _ = build_report(stats)
    section = page.split('<section id="timeseries">')[1].split("</section>")[0]
    assert "<svg" in section and "No time series" not in section
    assert "8 samples over core_cycles" in section
    # a growing counter is shown per interval; the per-instance series is left out
    assert "dram.bytes (per interval)" in section and "gpu.sm[0].x" not in section


def test_functional_mode_says_what_is_missing(stats_files, tmp_path):
    page, _ = build_report(load(stats_files["functional"]))
    assert "Functional mode: results only" in page
    assert "No stall statistics" in page and "no per-SM counters" in page


def test_a_fault_is_reported(stats_files):
    page, _ = build_report(load(stats_files["fault"]))
    assert '<span class="badge FAULT">FAULT</span>' in page
    assert "limits.cycles_per_launch" in page and "partial" in page
    assert '<section id="outcome">' in page


def test_charts_as_png_files(stats_files, tmp_path):
    _, pngs = build_report(load(stats_files["timing"]), charts_dir=str(tmp_path))
    names = sorted(p.split("/")[-1] for p in pngs)
    assert names == sorted(["report_launches.png", "report_kernels.png", "report_stalls.png",
                            "report_dram.png", "report_l2.png", "report_sm_heatmap.png"])
    for path in pngs:
        assert open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_values_are_escaped(stats_files):
    stats = copy.deepcopy(load(stats_files["timing"]))
    stats["launches"][0]["kernel"] = "<script>alert(1)</script>"
    page, _ = build_report(stats)
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_per_sm_numbers_agree_with_the_simulators_metric(stats_files):
    stats = load(stats_files["timing"])
    counters = derive.counters(stats)
    rows = derive.per_sm(stats)
    assert [r["sm"] for r in rows] == [0, 1]
    # the per-SM occupancies, weighted by active cycles, give the chip-wide metric
    weights = [counters[f"gpu.sm[{r['sm']}].active_cycles"] for r in rows]
    weighted = sum(r["occupancy_pct"] * w for r, w in zip(rows, weights)) / sum(weights)
    metric = derive.metrics(stats)["sm__warps_active.avg.pct_of_peak_sustained_active"]
    assert weighted == pytest.approx(metric, rel=1e-6)
    kernels = derive.kernels(stats)
    assert kernels[0]["launches"] == 2 and kernels[0]["share_pct"] == pytest.approx(100.0)


def test_bad_input_is_an_input_error(tmp_path):
    (tmp_path / "x.json").write_text("[1, 2]")
    completed = cli("report", tmp_path / "x.json", "-o", tmp_path / "r.html")
    assert completed.returncode == 3 and "not a statistics file" in completed.stderr
    completed = cli("report", tmp_path / "missing.json", "-o", tmp_path / "r.html")
    assert completed.returncode == 3 and "cannot read" in completed.stderr
