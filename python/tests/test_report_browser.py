"""`report` in a real browser: headless Chromium (Debian's `chromium`) loads the page from a run
made with --stats-interval, logs no console error, and draws it (a screenshot of some size)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from scgpu_tools.report import write_report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium (scripts/setup.sh installs Debian's)")
def test_the_report_renders_in_headless_chromium_without_console_errors(scgpu, tmp_path):
    stats = tmp_path / "s.json"
    subprocess.run([os.path.abspath(scgpu), "run", "transpose", "--config", "tiny", "--quiet", "--stats-interval", "500",
                    "--stats-json", str(stats)], cwd=str(tmp_path), capture_output=True, check=True, timeout=300)
    page = tmp_path / "report.html"
    write_report(str(stats), str(page))
    shot = tmp_path / "page.png"
    # An argument vector (no shell). --enable-logging=stderr puts the page's console messages on
    # stderr as CONSOLE lines; the DOM dump shows what the browser parsed.
    common = [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
              "--virtual-time-budget=5000", f"--user-data-dir={tmp_path / 'profile'}"]
    shown = subprocess.run(common + [f"--screenshot={shot}", "--window-size=1280,2000", page.as_uri()],
                           capture_output=True, text=True, timeout=120)
    dom = subprocess.run(common + ["--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    console = [line for line in (shown.stderr + dom.stderr).splitlines() if "CONSOLE" in line]
    errors = [line for line in console if re.search(r"error|uncaught", line, re.IGNORECASE)]
    assert not errors, "\n".join(errors)
    assert shot.is_file() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 20000, "a page with charts, not a blank one"
    # The browser built the sections, the time series among them, with their SVG charts.
    assert 'id="timeseries"' in dom.stdout and "<svg" in dom.stdout
    assert "No time series" not in dom.stdout
