"""The results directory: write-once records, provisional interrupted runs, the lock."""

from __future__ import annotations

import json
import os

import pytest

from scgpu_tools.errors import ToolError
from scgpu_tools.store import ResultStore, write_atomically


def record(run_id: str, status: str = "passed", message: str = "first") -> dict:
    return {"run_id": run_id, "status": status, "message": message}


def test_a_final_record_is_written_once(tmp_path):
    store = ResultStore(str(tmp_path))
    store.lock()
    assert store.save(record("a"), '{"launches": [1]}') is True
    assert store.save(record("a", message="second"), '{"launches": [2]}') is False
    assert store.load_record("a")["message"] == "first"
    assert store.load_stats("a") == {"launches": [1]}
    assert store.finished(["a", "b"]) == {"a"}
    store.unlock()


def test_an_interrupted_record_is_provisional(tmp_path):
    store = ResultStore(str(tmp_path))
    store.lock()
    assert store.save(record("a", "interrupted"), '{"partial": true}') is True
    assert store.finished(["a"]) == set()
    # the rerun replaces it, and then it is final
    assert store.save(record("a", "passed", "done"), '{"partial": false}') is True
    assert store.load_record("a")["status"] == "passed"
    assert store.load_stats("a") == {"partial": False}
    assert store.save(record("a", "passed", "again"), None) is False
    store.unlock()


def test_an_interrupted_run_without_stats_drops_old_stats(tmp_path):
    store = ResultStore(str(tmp_path))
    store.lock()
    store.save(record("a", "interrupted"), '{"old": 1}')
    store.save(record("a", "input_error"), None)
    assert store.load_stats("a") is None
    store.unlock()


def test_a_corrupt_record_is_not_finished(tmp_path):
    store = ResultStore(str(tmp_path))
    store.lock()
    with open(store.record_path("a"), "w") as stream:
        stream.write("{not json")
    assert store.finished(["a"]) == set()
    assert store.save(record("a"), None) is True
    store.unlock()


def test_atomic_writes_leave_no_temporary_files(tmp_path):
    path = tmp_path / "x.json"
    assert write_atomically(str(path), b"1") is True
    assert write_atomically(str(path), b"2", replace=False) is False
    assert path.read_bytes() == b"1"
    assert sorted(os.listdir(tmp_path)) == ["x.json"]
    # readable like any file the user writes (mkstemp alone would make it 0600)
    assert os.stat(path).st_mode & 0o044


def test_one_sweep_at_a_time(tmp_path):
    first = ResultStore(str(tmp_path))
    first.lock()
    second = ResultStore(str(tmp_path))
    with pytest.raises(ToolError, match="in use by another sweep"):
        second.lock()
    first.unlock()
    second.lock()
    second.unlock()


def test_records_are_json(tmp_path):
    store = ResultStore(str(tmp_path))
    store.lock()
    store.save(record("a"), None)
    with open(store.record_path("a")) as stream:
        assert json.load(stream)["run_id"] == "a"
    store.unlock()
