"""The command line as a user meets it: help, and input errors with exit status 3."""

from __future__ import annotations

from conftest import cli, write


def test_help_lists_the_commands():
    completed = cli("--help", check=True)
    for command in ("sweep", "plot", "report"):
        assert command in completed.stdout
    completed = cli("sweep", "--help", check=True)
    for option in ("--out", "--jobs", "--dask", "--scgpu", "--dry-run", "--retries"):
        assert option in completed.stdout


def test_a_bad_sweep_file_is_exit_3_with_its_location(tmp_path):
    sweep = write(tmp_path / "bad.yaml", """
        workloads: [saxpy]
        grid:
          sm.count: 4
        """)
    completed = cli("sweep", sweep, "--out", tmp_path / "out")
    assert completed.returncode == 3
    assert completed.stderr.strip() == (f"{sweep}:3:13: error: grid: 'sm.count' must be a list of "
                                        f"values (for one fixed value use set:)")
    assert not (tmp_path / "out").exists()


def test_missing_simulator_is_an_input_error(tmp_path):
    sweep = write(tmp_path / "s.yaml", "workloads: [saxpy]\n")
    completed = cli("sweep", sweep, "--out", tmp_path / "out", "--scgpu", tmp_path / "no-scgpu")
    assert completed.returncode == 3
    assert "no scgpu binary found" in completed.stderr and "no-scgpu (--scgpu)" in completed.stderr


def test_sweep_needs_an_output_directory(tmp_path):
    sweep = write(tmp_path / "s.yaml", "workloads: [saxpy]\n")
    completed = cli("sweep", sweep)
    assert completed.returncode == 3 and "--out DIR" in completed.stderr
