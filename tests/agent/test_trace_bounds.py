"""Traces are bounded: each record is capped (a long field kept in part, its size noted)
and the folder keeps the newest traces within a count and a total size, never the
trace of the task that is starting (or of one still being written)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from agent.conversation import ModelTurn, ToolCall, Usage
from agent.models.scripted import ScriptedModel
from agent.trace import (
    MAX_FIELD_CHARS,
    MAX_RECORD_CHARS,
    MAX_TRACE_DIR_BYTES,
    MAX_TRACES,
    ToolRecord,
    Trace,
    read_trace,
)


def old_traces(folder: Path, count: int, size: int = 10, age: float = 7200) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    now = time.time()
    for i in range(count):
        path = folder / f"task-20240101-0000{i:04d}-000000.jsonl"
        path.write_text("x")
        os.truncate(path, size)  # sparse: as large as a real trace, without the disk
        os.utime(path, (now - age - i, now - age - i))  # the first is the newest
        paths.append(path)
    return paths


def test_a_huge_step_is_stored_in_part_with_its_size(tmp_path: Path):
    trace = Trace.new(tmp_path)
    huge = json.dumps({"path": "big.txt", "content": "z" * (MAX_FIELD_CHARS * 3)})
    text = "t" * (MAX_FIELD_CHARS + 1)
    turn = ModelTurn(text, (ToolCall("c1", "create_file", huge),), Usage(1, 2))
    record = ToolRecord("create_file", huge, False, 5_000_000, 1.0, "s" * (MAX_FIELD_CHARS * 2))
    trace.step(1, turn, 10.0, [record])
    trace.close()
    assert trace.path is not None
    line = trace.path.read_text(encoding="utf-8")
    assert len(line) <= MAX_RECORD_CHARS + 1_000
    step = read_trace(trace.path)[0]
    assert step["model"]["content_chars"] == len(text)
    assert step["model"]["content"] == "t" * len(step["model"]["content"])
    assert step["model"]["tool_calls"][0]["arguments_chars"] == len(huge)
    assert step["tools"][0]["arguments_chars"] == len(huge)
    assert step["tools"][0]["summary_chars"] == MAX_FIELD_CHARS * 2
    assert step["tools"][0]["result_chars"] == 5_000_000  # a number, kept as it is


def test_a_record_within_the_caps_is_kept_whole(tmp_path: Path):
    trace = Trace.new(tmp_path)
    call = ToolCall("c1", "finish", json.dumps({"summary": "a" * (MAX_FIELD_CHARS - 20)}))
    trace.step(1, ModelTurn("ok", (call,)), 1.0, [])
    trace.close()
    assert trace.path is not None
    step = read_trace(trace.path)[0]
    assert step["model"]["tool_calls"][0]["arguments"] == call.arguments
    assert "arguments_chars" not in step["model"]["tool_calls"][0]


def test_a_trace_in_part_still_replays(tmp_path: Path):
    trace = Trace.new(tmp_path)
    huge = json.dumps({"summary": "z" * (MAX_FIELD_CHARS * 2)})
    trace.step(1, ModelTurn("", (ToolCall("c1", "finish", huge),)), 1.0, [])
    trace.close()
    assert trace.path is not None
    model = ScriptedModel.from_trace(trace.path)
    assert model is not None


def test_the_folder_keeps_the_newest_traces(tmp_path: Path):
    folder = tmp_path / "traces"
    old = old_traces(folder, MAX_TRACES + 20)
    (folder / "notes.txt").write_text("mine")
    trace = Trace.new(folder)
    trace.close()
    assert trace.path is not None and trace.path.exists()
    kept = sorted(folder.glob("task-*.jsonl"))
    assert len(kept) == MAX_TRACES
    assert all(p.exists() for p in old[: MAX_TRACES - 1])
    assert not any(p.exists() for p in old[MAX_TRACES - 1 :])
    assert (folder / "notes.txt").read_text() == "mine"  # not a trace: left alone


def test_the_folder_keeps_within_its_total_size(tmp_path: Path):
    folder = tmp_path / "traces"
    size = MAX_TRACE_DIR_BYTES // 4 + 1
    old = old_traces(folder, 6, size=size)
    trace = Trace.new(folder)
    trace.close()
    assert trace.path is not None and trace.path.exists()
    assert [p.exists() for p in old] == [True, True, True, False, False, False]


def test_a_trace_still_being_written_is_kept(tmp_path: Path):
    folder = tmp_path / "traces"
    old = old_traces(folder, MAX_TRACES + 5)
    running = old[-1]
    os.utime(running)  # written to just now: another task is running
    trace = Trace.new(folder)
    trace.close()
    assert running.exists()
