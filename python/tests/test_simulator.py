"""One run: the command line, and how exit statuses and statistics become a status and message.

These use stand-in commands (a Python one-liner instead of the simulator), so they need no build.
"""

from __future__ import annotations

import json
import sys

from scgpu_tools import simulator
from scgpu_tools.simulator import RunTask, build_argv, classify, execute


def test_command_line():
    argv = build_argv("/bin/scgpu", "saxpy", "tiny", [("sm.count", 2), ("dram.standard", "gddr6"),
                                                      ("sm.operand_reuse", True)],
                      scale=4, timeout_s=30, threads=2, extra_args=["--seed", "3"])
    assert argv == ["/bin/scgpu", "run", "saxpy", "--config", "tiny", "--quiet",
                    "--set", "sm.count=2", "--set", "dram.standard=gddr6",
                    "--set", "sm.operand_reuse=true", "--scale", "4", "--timeout", "30.0",
                    "--threads", "2", "--fault-trace-cycles", "0", "--seed", "3"]
    # a user who wants fault waveforms says so, and the default is not added twice
    argv = build_argv("/bin/scgpu", "k.yaml", "tiny", [], None, None, 1, ["--fault-trace-cycles", "500"])
    assert argv.count("--fault-trace-cycles") == 1 and "--scale" not in argv


def test_classify_by_exit_status_and_fault_kind():
    assert classify(0, {"message": "65536 floats match"}, "", "") == ("passed", "65536 floats match")
    assert classify(1, {"checks": [{"passed": False, "message": "3 differ"}]}, "", "") == ("check_failed", "3 differ")
    fault = {"fault": {"kind": "timeout", "kernel": "k", "message": "ran past the limit"}}
    assert classify(2, fault, "", "") == ("timeout", "timeout in kernel 'k': ran past the limit")
    fault = {"fault": {"kind": "illegal_address", "kernel": "k", "message": "at 0x10"}}
    assert classify(2, fault, "", "") == ("fault", "illegal_address in kernel 'k': at 0x10")
    assert classify(3, None, "", "note\nx.yaml:1:2: error: bad\n") == ("input_error", "x.yaml:1:2: error: bad")
    assert classify(4, None, "DIVERGED l2", "") == ("diverged", "DIVERGED l2")
    assert classify(130, None, "", "")[0] == "interrupted"
    assert classify(-11, None, "", "boom") == ("crashed", "killed by signal SIGSEGV: boom")


def python_task(code: str, guard=None) -> RunTask:
    return RunTask(run_id="t", argv=(sys.executable, "-c", code), guard_timeout_s=guard)


def test_execute_reads_the_statistics_file():
    # the stand-in writes what it is told to with --stats-json, as the simulator does
    code = ("import sys, json; path = sys.argv[sys.argv.index('--stats-json') + 1]; "
            "json.dump({'message': 'fine', 'launches': []}, open(path, 'w')); print('PASSED x')")
    outcome = execute(python_task(code))
    assert outcome.status == "passed" and outcome.message == "fine" and outcome.exit_code == 0
    assert json.loads(outcome.stats_text) == {"message": "fine", "launches": []}


def test_a_crash_is_a_result_not_an_exception():
    outcome = execute(python_task("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"))
    assert outcome.status == "crashed" and "SIGSEGV" in outcome.message and outcome.stats_text is None


def test_a_run_that_does_not_stop_is_stopped(monkeypatch):
    monkeypatch.setattr(simulator, "INTERRUPT_GRACE_S", 0.5)
    # ignores SIGINT, so the sweep has to kill it after the grace period
    code = "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(60)"
    outcome = execute(python_task(code, guard=0.5))
    assert outcome.status == "timeout" and "stopped by the sweep" in outcome.message
    assert outcome.wall_s < 10


def test_after_ctrl_c_a_failure_is_an_interruption():
    """A run the sweep sent SIGINT to may fail in odd ways (here: it ignores the signal and exits
    1, 'check failed'); that is not its result, so it is recorded as interrupted and run again."""
    import threading

    code = "import signal, sys, time; signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(0.5); sys.exit(1)"
    timer = threading.Timer(0.2, simulator.interrupt_all)
    timer.start()
    try:
        outcome = execute(python_task(code))
    finally:
        timer.join()
        simulator.reset_interrupt()
    assert outcome.status == "interrupted"
    assert outcome.message == "interrupted by the sweep (check_failed)"
    # without Ctrl-C, exit 1 is a failed check
    assert execute(python_task("import sys; sys.exit(1)")).status == "check_failed"
