"""``surehand run``'s hunk-by-hunk review, in process: each hunk's own diff, the keys,
and for any decisions exactly the accepted hunks written.

The review runs for real (``accept.offer`` with the walk, the landing and the
write onto files in a temporary folder); only the answers come from a pipe,
with the terminal told it is one.
"""

from __future__ import annotations

import asyncio
import io
import os
import tempfile
from pathlib import Path

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, given, settings

from agent.conversation import Usage
from agent.staging.history import History
from agent.staging.hunk_diff import NO_NEWLINE, hunk_diff
from agent.staging.hunks import Hunk, StagedText, apply
from agent.staging.line_cut import split_lines
from agent.staging.proposal import Ending, Proposal, ProposedChange, RunEnd
from agent.staging.rebase import rebase
from surehand.terminal.accept import offer
from surehand.terminal.line_input import LineReader
from surehand.terminal.screen import Terminal
from tests.support.scripted_task import CALC, FIXED

SUB_DONE = FIXED.replace("    return a - b\n", "    return a - b  # sub\n")


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The history of accepted tasks goes to the test's own folder."""
    folder = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(folder))
    return folder


def staged(base: str, *edits: tuple[str, str, str]) -> tuple[Hunk, ...]:
    """The hunks of ``edits`` (old, new, label: ``old`` once in the text as it is then),
    each staged on its own as the agent does."""
    text = StagedText(base)
    for old, new, label in edits:
        start = text.text().index(old)
        text.replace(start, start + len(old), new, label)
    return tuple(text.hunks)


def change(path: str, base: str | None, *edits: tuple[str, str, str]) -> ProposedChange:
    assert base is not None
    hunks = staged(base, *edits)
    labels = tuple(label for _, _, label in edits)
    return ProposedChange(path, base, apply(base, hunks), labels, hunks=hunks)


def review(root: Path, changes: list[ProposedChange], answers: list[str]) -> tuple[int, str]:
    """``offer`` on a terminal, the ``answers`` typed one by one; its code and output."""
    read, write = os.pipe()
    os.write(write, "".join(f"{a}\n" for a in answers).encode())
    os.close(write)
    out = io.StringIO()
    terminal = Terminal(out, reader=LineReader(read), interactive=True)
    proposal = Proposal(tuple(changes), (), RunEnd(Ending.FINISHED, "done"), Usage(), 1, None)
    try:
        code = asyncio.run(offer(proposal, root, terminal, assume_yes=False, task="the task"))
    finally:
        os.close(read)
    return code, out.getvalue()


def files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.iterdir()) if p.is_file()}


# -- one hunk, one diff -------------------------------------------------------------------


def test_two_nearby_hunks_are_two_diffs_each_of_its_own_lines():
    fix, note = staged(
        CALC,
        ("    return a - b\n", "    return a + b\n", "add adds"),
        ("    return a - b\n", "    return a - b  # sub\n", "sub noted"),
    )
    whole = ProposedChange("calc.py", CALC, SUB_DONE, ("both",)).diff()
    assert whole.count("@@") == 2, "the whole-file diff draws both edits as one block"

    assert hunk_diff(CALC, fix) == [
        "@@ -1,5 +1,5 @@",
        " def add(a, b):",
        "-    return a - b",
        "+    return a + b",
        " ",
        " ",
        " def sub(a, b):",
    ]
    assert hunk_diff(CALC, note) == [
        "@@ -3,4 +3,4 @@",
        " ",
        " ",
        " def sub(a, b):",
        "-    return a - b",
        "+    return a - b  # sub",
    ]


def test_crlf_endings_are_line_breaks_unless_the_lines_shown_mix_them():
    base = "a\r\nb\r\nc\r\n"
    (upper,) = staged(base, ("b\r\n", "B\r\n", "upper"))
    assert hunk_diff(base, upper) == ["@@ -1,3 +1,3 @@", " a", "-b", "+B", " c"]
    (to_lf,) = staged(base, ("b\r\n", "b\n", "lf"))
    assert hunk_diff(base, to_lf) == ["@@ -1,3 +1,3 @@", " a\r", "-b\r", "+b", " c\r"]


def test_a_last_line_without_a_newline_is_said():
    base = "a\nb"
    (edit,) = staged(base, ("b", "c", "c"))
    assert hunk_diff(base, edit) == ["@@ -1,2 +1,2 @@", " a", "-b", NO_NEWLINE, "+c", NO_NEWLINE]
    (ended,) = staged(base, ("b", "b\n", "newline"))
    assert hunk_diff(base, ended) == ["@@ -1,2 +1,2 @@", " a", "-b", NO_NEWLINE, "+b"]


def test_a_new_file_an_insertion_and_a_deletion_name_the_line_before_an_empty_side():
    assert hunk_diff("", Hunk(0, 0, "x\ny\n", ())) == ["@@ -0,0 +1,2 @@", "+x", "+y"]
    assert hunk_diff("a\nb\n", Hunk(0, 4, "", ())) == ["@@ -1,2 +0,0 @@", "-a", "-b"]
    assert hunk_diff("a\nb\n", Hunk(2, 2, "n\n", ())) == ["@@ -1,2 +1,3 @@", " a", "+n", " b"]


def test_what_the_model_chose_is_shown_with_its_hidden_characters_escaped(tmp_path: Path):
    root = tmp_path / "project"
    root.mkdir()
    base = "x = 1\ny = 2\n"
    (root / "a.py").write_text(base, encoding="utf-8")
    sneaky = change("a.py", base, ("y = 2\n", "y = 3  # \x1b[2K\x1b[1G\r+ok\n", "looks fine\u202e"))
    code, out = review(root, [sneaky], ["n"])

    assert code == 1
    assert "\x1b" not in out and "\u202e" not in out and "\r" not in out
    assert "a.py · hunk 1 of 1, file 1 of 1 · looks fine\\u202e" in out
    assert "+y = 3  # \\x1b[2K\\x1b[1G\\x0d+ok" in out
    assert files(root) == {"a.py": base.encode()}


# -- the keys -----------------------------------------------------------------------------

HELPER = "X = 1\nY = 2\n"


def two_files(root: Path) -> list[ProposedChange]:
    (root / "calc.py").write_text(CALC, encoding="utf-8")
    (root / "helper.py").write_text(HELPER, encoding="utf-8")
    return [
        change(
            "calc.py",
            CALC,
            ("    return a - b\n", "    return a + b\n", "add adds"),
            ("    return a - b\n", "    return a - b  # sub\n", "sub noted"),
        ),
        change("helper.py", HELPER, ("X = 1\n", "X = 3\n", "x"), ("Y = 2\n", "Y = 4\n", "y")),
    ]


def test_accept_reject_back_and_the_rest_of_a_file(tmp_path: Path):
    changes = two_files(tmp_path)
    code, out = review(tmp_path, changes, ["k", "", "y", "n", "k", "x", "?", "n", "a"])

    assert code == 0
    assert files(tmp_path) == {"calc.py": FIXED.encode(), "helper.py": b"X = 3\nY = 4\n"}
    assert "This is the first hunk; there is none before it." in out
    assert "Type a key, then Enter (? for the keys)." in out
    assert out.count("calc.py · hunk 2 of 4, file 1 of 2 · sub noted") == 2
    assert "(you rejected it; decide again)" in out
    assert "Not a key here: 'x'." in out
    assert "a - accept this hunk and every later one of this file" in out
    assert "3 of 4 hunks accepted in 2 files." in out
    assert (
        "Partly applied. calc.py: accepted: add adds (line 2), rejected: sub noted (line 6). "
        "helper.py: accepted: x (line 1); y (line 2)." in out
    )


def test_reject_the_rest_of_a_file_then_accept_all_remaining(tmp_path: Path):
    changes = two_files(tmp_path)
    code, out = review(tmp_path, changes, ["d", "A"])

    assert code == 0
    assert files(tmp_path) == {"calc.py": CALC.encode(), "helper.py": b"X = 3\nY = 4\n"}
    assert "2 of 4 hunks accepted in 1 file." in out


def test_reject_all_remaining_and_quit_write_only_what_was_accepted(tmp_path: Path):
    changes = two_files(tmp_path)
    code, _ = review(tmp_path, changes, ["y", "D"])
    assert code == 0
    assert files(tmp_path) == {"calc.py": FIXED.encode(), "helper.py": HELPER.encode()}

    changes = two_files(tmp_path)
    code, out = review(tmp_path, changes, ["n", "y", "q"])
    assert code == 0
    assert files(tmp_path)["calc.py"] == (CALC[: CALC.rindex("a - b")] + "a - b  # sub\n").encode()
    assert "1 of 4 hunks accepted in 1 file." in out


def test_nothing_accepted_writes_nothing_and_the_end_of_input_quits(tmp_path: Path):
    changes = two_files(tmp_path)
    code, out = review(tmp_path, changes, ["n"])  # then the input ends

    assert code == 1
    assert files(tmp_path) == {"calc.py": CALC.encode(), "helper.py": HELPER.encode()}
    assert "0 of 4 hunks accepted." in out
    assert "Discarded." in out and "Nothing was written." in out


def test_a_file_that_changes_how_tools_run_takes_a_typed_yes_never_a_or_accept_all(
    tmp_path: Path,
):
    (tmp_path / "calc.py").write_text(CALC, encoding="utf-8")
    (tmp_path / ".envrc").write_text("export A=1\n", encoding="utf-8")
    changes = [
        change("calc.py", CALC, ("    return a - b\n", "    return a + b\n", "add adds")),
        change(".envrc", "export A=1\n", ("export A=1\n", "export A=2\n", "A is two")),
    ]
    code, out = review(tmp_path, changes, ["A", "y", "a", "A", "yes"])

    assert code == 0
    assert files(tmp_path) == {".envrc": b"export A=2\n", "calc.py": FIXED.encode()}
    assert "⚠ .envrc changes how tools run" in out
    assert "Accept this hunk of .envrc on its own? Type yes, or [n,d,D,k,q,?]" in out
    assert out.count(".envrc changes how tools run: type yes to accept it, on its own.") == 3


def test_new_deleted_and_moved_files_are_items_of_their_own(tmp_path: Path):
    (tmp_path / "old.py").write_text("OLD = 1\n", encoding="utf-8")
    (tmp_path / "a.py").write_text("A = 1\n", encoding="utf-8")
    changes = [
        ProposedChange("util.py", None, "def f():\n    return 1\n", ("new util",)),
        ProposedChange("old.py", "OLD = 1\n", None, ("old goes",)),
        ProposedChange("b.py", "A = 1\n", "A = 1\n", ("moved",), source="a.py"),
    ]
    code, out = review(tmp_path, changes, ["n", "y", "y"])

    assert code == 0
    assert files(tmp_path) == {"b.py": b"A = 1\n"}
    assert "New file util.py:\n@@ -0,0 +1,2 @@\n+def f():\n+    return 1\n" in out
    assert "Delete old.py, which holds:\n@@ -1,1 +0,0 @@\n-OLD = 1\n" in out
    assert "Accept moving a.py to b.py? [y,n,a,d,A,D,k,q,?]" in out
    assert "2 of 3 hunks accepted in 2 files." in out


def test_what_was_written_is_recorded_for_undo(tmp_path: Path, state: Path):
    root = tmp_path / "project"
    root.mkdir()
    changes = two_files(root)
    review(root, changes, ["y", "n", "n", "y"])

    record = History.of(root, state).last()
    assert record is not None and record.task == "the task" and record.front == "terminal"
    assert {(f.path, f.before, f.after) for f in record.files} == {
        ("calc.py", CALC, FIXED),
        ("helper.py", HELPER, "X = 1\nY = 4\n"),
    }


def test_a_file_changed_before_the_answer_is_rebased_and_asked_about(tmp_path: Path):
    (tmp_path / "calc.py").write_text(CALC, encoding="utf-8")
    fix = change("calc.py", CALC, ("    return a - b\n", "    return a + b\n", "add adds"))
    mine = "# mine\n" + CALC
    (tmp_path / "calc.py").write_text(mine, encoding="utf-8")
    code, out = review(tmp_path, [fix], ["y", "y"])

    assert code == 0
    assert files(tmp_path) == {"calc.py": ("# mine\n" + FIXED).encode()}
    assert "calc.py changed since the agent read it; the changes are rebased" in out
    assert "Apply these changes to your files? [y/N]" in out
    assert "Applied. calc.py: accepted: add adds (line 3), rebased onto your changes." in out


# -- any decisions: exactly the accepted hunks --------------------------------------------


@st.composite
def decisions(draw: st.DrawFn) -> tuple[str, tuple[Hunk, ...], list[bool], str]:
    """A text, the model's hunks on it, a decision for each, and the text the person
    has by the end of the review (theirs: the same, or one line of it changed where
    no hunk is)."""
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    count = draw(st.integers(1, 10))
    lines = [f"line {i}{ending}" for i in range(count)]
    if draw(st.booleans()):
        lines[-1] = lines[-1].rstrip("\r\n")
    base = "".join(lines)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    text = StagedText(base)
    for at in sorted(draw(st.sets(st.integers(0, count), min_size=1, max_size=5)), reverse=True):
        kind = draw(st.sampled_from(["replace", "delete", "insert"]))
        start, end = starts[at], starts[min(at + 1, count)]
        if kind == "insert" or at == count:
            text.replace(start, start, f"new {at}{ending}", f"insert {at}")
        elif kind == "delete":
            text.replace(start, end, "", f"delete {at}")
        else:
            text.replace(start, end, f"changed {at}{ending}", f"change {at}")
    hunks = tuple(text.hunks)
    chosen = draw(st.lists(st.booleans(), min_size=len(hunks), max_size=len(hunks)))
    free = [
        i
        for i in range(count)
        if not any(h.start < starts[i + 1] and starts[i] < h.end for h in hunks)
    ]
    theirs = base
    if bool(free) and draw(st.booleans()):
        mine = draw(st.sampled_from(free))
        line = split_lines(base)[mine]
        theirs = base[: starts[mine]] + line.replace("line", "mine") + base[starts[mine + 1] :]
    return base, hunks, chosen, theirs


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(decisions())
def test_for_any_decisions_the_accepted_hunks_are_written_rebased_on_yours(case):
    base, hunks, chosen, theirs = case
    accepted = [h for h, take in zip(hunks, chosen, strict=True) if take]
    proposed = ProposedChange("f.txt", base, apply(base, hunks), ("edits",), hunks=hunks)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "f.txt").write_bytes(theirs.encode())
        answers = ["y" if take else "n" for take in chosen] + ["y"]  # and yes to the rebase
        code, out = review(root, [proposed], answers)
        written = (root / "f.txt").read_bytes().decode()

    assert written == rebase(base, tuple(accepted), theirs).text
    if theirs == base:
        assert written == apply(base, accepted)
    assert code == (0 if accepted else 1)
    noun = "hunk" if len(hunks) == 1 else "hunks"
    assert f"{len(accepted)} of {len(hunks)} {noun} accepted" in out
