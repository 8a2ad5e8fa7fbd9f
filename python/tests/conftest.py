"""Shared fixtures: where the simulator is, small sweep files, a simulator that counts its runs.

The simulator comes from $SCGPU, else the repository's build/scgpu; without either, the tests
that need it are skipped with a message saying so (the pure-Python tests still run).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]
REPOSITORY = PYTHON_DIR.parent
sys.path.insert(0, str(PYTHON_DIR))

# Dask's spawned worker processes find scgpu_tools through the environment, not sys.path.
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(PYTHON_DIR)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])

PYTHON = sys.executable


def simulator_path():
    explicit = os.environ.get("SCGPU")
    if explicit:
        if not (os.path.isfile(explicit) and os.access(explicit, os.X_OK)):
            pytest.fail(f"SCGPU={explicit} is not an executable file")
        return explicit
    default = REPOSITORY / "build" / "scgpu"
    return str(default) if default.is_file() else None


@pytest.fixture(scope="session")
def scgpu() -> str:
    path = simulator_path()
    if path is None:
        pytest.skip("no simulator: build build/scgpu (scripts/build.sh) or set SCGPU=/path/to/scgpu")
    return path


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text).lstrip())
    return path


@pytest.fixture
def counting_scgpu(tmp_path, scgpu):
    """A stand-in simulator that logs each invocation, then becomes the real one (exec).

    Returns (path, function returning the number of `run` invocations so far)."""
    log = tmp_path / "invocations.log"
    wrapper = tmp_path / "scgpu-counting"
    wrapper.write_text(
        f"#!{PYTHON}\n"
        "import os, sys\n"
        f"with open({str(log)!r}, 'a') as stream:\n"
        "    stream.write(' '.join(sys.argv[1:]) + '\\n')\n"
        f"os.execv({scgpu!r}, [{scgpu!r}] + sys.argv[1:])\n")
    wrapper.chmod(0o755)

    def runs() -> int:
        if not log.exists():
            return 0
        return sum(1 for line in log.read_text().splitlines() if line.startswith("run "))

    return str(wrapper), runs


def cli(*args, scgpu=None, check=False, timeout=300, **kwargs):
    """Run `python3 -m scgpu_tools ARGS` as a user would."""
    environment = dict(os.environ)
    if scgpu:
        environment["SCGPU"] = scgpu
    completed = subprocess.run([PYTHON, "-m", "scgpu_tools", *map(str, args)], cwd=str(REPOSITORY),
                               env=environment, capture_output=True, text=True, timeout=timeout,
                               **kwargs)
    if check and completed.returncode != 0:
        raise AssertionError(f"exit {completed.returncode}\n{completed.stdout}\n{completed.stderr}")
    return completed


# A hand-written PTX kernel (data[i] += 1) for the launch-file workloads.
ADD_ONE_PTX = """\
.version 8.0
.target sm_90
.address_size 64

.visible .entry add_one(.param .u64 data_param, .param .u32 count_param)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [data_param];
	ld.param.u32 %r1, [count_param];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r2, %r3, %r4;
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra $L_end;
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.u32 %rd3, %r5, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.u32 %r6, [%rd4];
	add.s32 %r7, %r6, 1;
	st.global.u32 [%rd4], %r7;
$L_end:
	ret;
}
"""


def make_launch_files(directory: Path):
    """Two launch files of the same kernel: one whose expect: matches, one whose does not."""
    import numpy as np

    (directory / "add_one.ptx").write_text(ADD_ONE_PTX)
    np.arange(1, 1001, dtype=np.uint32).tofile(directory / "right.bin")
    np.zeros(1000, dtype=np.uint32).tofile(directory / "wrong.bin")
    for name, expected in (("add_one_ok.yaml", "right.bin"), ("add_one_bad.yaml", "wrong.bin")):
        write(directory / name, f"""
            ptx: add_one.ptx
            kernel: add_one
            grid: 4
            block: 256
            buffers:
              data: {{type: u32, count: 1000, init: iota, expect: {expected}}}
            args: [data, {{scalar: {{type: u32, value: 1000}}}}]
            """)
    return directory / "add_one_ok.yaml", directory / "add_one_bad.yaml"


# The sweep most tests look at: 4 grid points that pass, one that times out, one the config
# check refuses; two suite workloads (reduce_tree has two launches) and a launch file whose
# expect: fails. 6 points x 3 workloads = 18 runs, about 2 s on 2 cores.
EXAMPLE_SWEEP = """
    description: test sweep
    base: tiny
    set: {sm.count: 2}
    grid:
      l2.cache.size_bytes: [65536, 262144]
      dram.channels: [1, 2]
    points:
      - {limits.cycles_per_launch: 2000}
      - {sm.count: 0}
    workloads:
      - saxpy
      - reduce_tree
      - add_one_bad.yaml
    """


@pytest.fixture(scope="session")
def example_sweep(tmp_path_factory, scgpu):
    """(results directory, sweep file, finished CLI process) of EXAMPLE_SWEEP, run once."""
    directory = tmp_path_factory.mktemp("example")
    make_launch_files(directory)
    sweep_file = write(directory / "sweep.yaml", EXAMPLE_SWEEP)
    out = directory / "out"
    completed = cli("sweep", sweep_file, "--out", out, "--jobs", "2", scgpu=scgpu)
    return out, sweep_file, completed
