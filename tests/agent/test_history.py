"""The record of accepted tasks and the undo of a whole task: every kind of file change,
the person's own changes since kept or the undo refused, tasks undone newest first."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.staging import history
from agent.staging.history import FileChange, History, plan_undo, what_landed
from agent.staging.proposal import ProposedChange

BEFORE = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n"
AFTER = "ONE\ntwo\nthree\nfour\nfive\nsix\nseven\n"


def texts(files: dict[str, str]):
    return files.get


def undone(plan, files: dict[str, str]) -> dict[str, str]:
    """``files`` with the plan's changes made (as a front end writes them)."""
    result = dict(files)
    for path, text in plan.proposal().writes().items():
        if text is None:
            result.pop(path, None)
        else:
            result[path] = text
    return result


@pytest.fixture
def kept(tmp_path: Path) -> History:
    return History.of(tmp_path / "project", state=tmp_path / "state")


def test_a_recorded_task_is_kept_newest_first_and_read_back_whole(kept: History):
    first = kept.record("fix a", [FileChange("a.py", BEFORE, AFTER)], front="terminal")
    second = kept.record(
        "add b", [FileChange("b.py", None, "new\r\nno final line")], front="editor"
    )
    assert first is not None and second is not None
    assert [r.id for r in kept.tasks()] == [second.id, first.id]
    assert kept.tasks()[0] == second
    assert second.as_json()["files"] == [{"path": "b.py", "operation": "create"}]
    assert kept.last() == second


def test_a_task_that_changed_nothing_is_not_recorded(kept: History):
    assert kept.record("nothing", [FileChange("a.py", BEFORE, BEFORE)], front="editor") is None
    assert kept.tasks() == []


def test_each_workspace_has_its_own_history(tmp_path: Path):
    one = History.of(tmp_path / "one", state=tmp_path / "state")
    two = History.of(tmp_path / "two", state=tmp_path / "state")
    one.record("fix", [FileChange("a.py", BEFORE, AFTER)], front="terminal")
    assert two.tasks() == [] and len(one.tasks()) == 1


def test_an_unchanged_file_goes_back_whole(kept: History):
    record = kept.record("fix", [FileChange("a.py", BEFORE, AFTER)], front="terminal")
    assert record is not None
    plan = plan_undo(record, texts({"a.py": AFTER}))
    assert plan.refused == ()
    assert undone(plan, {"a.py": AFTER}) == {"a.py": BEFORE}


def test_the_persons_change_since_is_kept(kept: History):
    record = kept.record("fix", [FileChange("a.py", BEFORE, AFTER)], front="terminal")
    assert record is not None
    theirs = AFTER.replace("seven", "SEVEN by hand")
    plan = plan_undo(record, texts({"a.py": theirs}))
    assert plan.refused == ()
    assert undone(plan, {"a.py": theirs}) == {"a.py": BEFORE.replace("seven", "SEVEN by hand")}


def test_a_change_on_the_tasks_own_lines_refuses_the_whole_undo(kept: History):
    files = [FileChange("a.py", BEFORE, AFTER), FileChange("b.py", "x\n", "y\n")]
    record = kept.record("fix", files, front="editor")
    assert record is not None
    plan = plan_undo(record, texts({"a.py": AFTER.replace("ONE", "ONE!"), "b.py": "y\n"}))
    assert plan.changes == ()
    (refusal,) = plan.refused
    assert refusal.path == "a.py" and "line(s) 1" in refusal.why


def test_a_created_file_is_deleted_unless_changed_since(kept: History):
    record = kept.record("add", [FileChange("n.py", None, "new\n")], front="terminal")
    assert record is not None
    assert undone(plan_undo(record, texts({"n.py": "new\n"})), {"n.py": "new\n"}) == {}
    plan = plan_undo(record, texts({"n.py": "new\nmine\n"}))
    assert plan.changes == () and plan.refused[0].path == "n.py"
    assert "not deleted" in plan.refused[0].why


def test_a_deleted_file_comes_back_unless_made_again(kept: History):
    record = kept.record("drop", [FileChange("old.py", "text\n", None)], front="terminal")
    assert record is not None
    assert undone(plan_undo(record, texts({})), {}) == {"old.py": "text\n"}
    plan = plan_undo(record, texts({"old.py": "mine\n"}))
    assert plan.changes == () and "exists again" in plan.refused[0].why


def test_a_moved_file_goes_back_to_its_old_path_with_its_old_text(kept: History):
    record = kept.record(
        "move", [FileChange("pkg/new.py", BEFORE, AFTER, source="old.py")], front="editor"
    )
    assert record is not None
    plan = plan_undo(record, texts({"pkg/new.py": AFTER}))
    assert plan.refused == ()
    assert undone(plan, {"pkg/new.py": AFTER}) == {"old.py": BEFORE}
    plan = plan_undo(record, texts({"pkg/new.py": AFTER, "old.py": "again\n"}))
    assert plan.changes == () and plan.refused[0].path == "old.py"


def test_tasks_are_undone_newest_first(kept: History):
    middle = AFTER.replace("four", "FOUR")
    first = kept.record("one", [FileChange("a.py", BEFORE, AFTER)], front="terminal")
    second = kept.record("two", [FileChange("a.py", AFTER, middle)], front="terminal")
    assert first is not None and second is not None
    files = {"a.py": middle}
    assert kept.last() == second
    files = undone(plan_undo(second, files.get), files)
    kept.mark_undone(second)
    assert kept.last() == first
    files = undone(plan_undo(first, files.get), files)
    kept.mark_undone(first)
    assert files == {"a.py": BEFORE} and kept.last() is None
    assert [r.undone for r in kept.tasks()] == [True, True]


def test_records_are_bounded_in_number_age_and_size(kept: History, monkeypatch):
    monkeypatch.setattr(history, "MAX_TASKS", 3)
    for n in range(5):
        kept.record(f"task {n}", [FileChange("a.py", str(n), str(n + 1))], front="terminal")
        time.sleep(0.01)
    assert [r.task for r in kept.tasks()] == ["task 4", "task 3", "task 2"]
    old = max(kept.folder.glob("*.json"))  # task 4's
    stamp = time.time() - history.MAX_AGE - 60
    os.utime(old, (stamp, stamp))
    kept.record("task 5", [FileChange("a.py", "5", "6")], front="terminal")
    assert [r.task for r in kept.tasks()] == ["task 5", "task 3"]
    monkeypatch.setattr(history, "MAX_TASK_BYTES", 100)
    assert kept.record("big", [FileChange("a.py", "x" * 200, "y")], front="terminal") is None


def test_an_unreadable_record_is_skipped(kept: History):
    kept.record("fix", [FileChange("a.py", BEFORE, AFTER)], front="terminal")
    (kept.folder / "broken.json").write_text("{not json")
    (kept.folder / "other.json").write_text(json.dumps({"format": 99}))
    assert [r.task for r in kept.tasks()] == ["fix"]


LINES = st.lists(st.sampled_from(["a", "b", "c", "", " x", "\t", "é"]), min_size=8, max_size=30)
ENDINGS = st.sampled_from(["\n", "\r\n"])


@settings(max_examples=int(os.environ.get("SUREHAND_FUZZ_EXAMPLES", "200")), deadline=None)
@given(
    LINES,
    ENDINGS,
    st.booleans(),
    st.data(),
)
def test_undo_gives_the_text_before_with_the_persons_change_kept(lines, ending, final, data):
    """The task edits the top of a file and the person, since, its bottom: the undo leaves
    exactly the text before the task with the person's change."""
    before_lines = [f"{line}{n}" for n, line in enumerate(lines)]
    split = len(before_lines) // 2
    task_lines = [data.draw(st.sampled_from(["T", "", "task"])) for _ in range(split - 2)]
    their_tail = [data.draw(st.sampled_from(["P", "", "mine"])) for _ in range(3)]

    def text(rows: list[str]) -> str:
        body = ending.join(rows)
        return body + ending if final else body

    before = text(before_lines)
    after = text(task_lines + before_lines[split - 2 :])
    theirs = text(task_lines + before_lines[split - 2 : -1] + their_tail)
    expected = text(before_lines[:-1] + their_tail)
    record = history.TaskRecord("id", "task", 0.0, "terminal", (FileChange("f", before, after),))
    for now, want in ((after, before), (theirs, expected)):
        plan = plan_undo(record, {"f": now}.get)
        assert plan.refused == ()
        assert undone(plan, {"f": now}) == {"f": want}


def test_what_landed_holds_only_the_accepted_hunks_never_the_persons_typing():
    change = ProposedChange(
        "a.py", BEFORE, BEFORE.replace("one", "ONE").replace("seven", "SEVEN"), ("fix",)
    )
    assert len(change.hunks) == 2
    partly = BEFORE.replace("one", "ONE")
    assert what_landed(change, {"a.py": partly}.get) == FileChange("a.py", BEFORE, partly)
    typed = partly.replace("four", "four by hand")
    assert what_landed(change, {"a.py": typed}.get) == FileChange("a.py", BEFORE, partly)
    assert what_landed(change, {"a.py": BEFORE}.get) is None


def test_what_landed_of_file_operations_says_whether_they_happened():
    nothing: dict[str, str] = {}
    created = ProposedChange("n.py", None, "new\n", ("add",))
    assert what_landed(created, nothing.get) is None
    assert what_landed(created, {"n.py": "new\n"}.get) == FileChange("n.py", None, "new\n")
    deleted = ProposedChange("o.py", "old\n", None, ("drop",))
    assert what_landed(deleted, {"o.py": "old\n"}.get) is None
    assert what_landed(deleted, nothing.get) == FileChange("o.py", "old\n", None)
    moved = ProposedChange("b.py", BEFORE, AFTER, ("move",), source="a.py")
    assert what_landed(moved, {"a.py": BEFORE}.get) is None
    assert what_landed(moved, {"b.py": BEFORE}.get) == FileChange("b.py", BEFORE, BEFORE, "a.py")
