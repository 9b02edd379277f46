"""A task written as a ``surehand:`` comment: which lines are tasks, and taking them out
changes nothing else (property-tested: it is a text transform)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent.loop.comment_task import CommentTask, described, find, task_of, without


@pytest.mark.parametrize(
    ("line", "task"),
    [
        (
            "# surehand: make parse_dmy accept two-digit years",
            "make parse_dmy accept two-digit years",
        ),
        ("    # surehand: indented", "indented"),
        ("// surehand: in C", "in C"),
        ("/// SUREHAND: doc comment", "doc comment"),
        ("-- surehand: in SQL or Lua", "in SQL or Lua"),
        ("/* surehand: block */", "block"),
        ("<!-- surehand: in HTML -->", "in HTML"),
        ("; surehand: in Lisp", "in Lisp"),
        ("% surehand: in LaTeX", "in LaTeX"),
        ('" surehand: in Vim script', "in Vim script"),
        ("(* surehand: in OCaml *)", "in OCaml"),
        ("{- surehand: in Haskell -}", "in Haskell"),
        ("REM surehand: in batch", "in batch"),
        (" * surehand: inside a block comment", "inside a block comment"),
    ],
)
def test_a_comment_line_of_its_own_is_a_task(line: str, task: str):
    assert task_of(line) == task


@pytest.mark.parametrize(
    "line",
    [
        "x = 1  # surehand: after code",
        'print("surehand: in a string")',
        "surehand: no comment leader",
        "# surehand:",
        "# surehand:    ",
        "# not surehand: elsewhere on the line",
        "#surehand make it fast",
    ],
)
def test_anything_else_is_not(line: str):
    assert task_of(line) is None


def test_lines_are_counted_as_editors_count_them():
    """LSP's line breaks only: a form feed is inside a line, a lone CR ends one."""
    text = "a\x0cb\r# surehand: one\r\nc\n// surehand: two"
    assert find(text) == [
        CommentTask(1, "one", "# surehand: one"),
        CommentTask(3, "two", "// surehand: two"),
    ]
    assert find(text, 2, 3) == [CommentTask(3, "two", "// surehand: two")]


def test_a_moved_comment_is_found_by_its_text_and_a_gone_one_is_left():
    text = "a\n# surehand: fix\nb\n"
    (task,) = find(text)
    moved = "new\nlines\na\n# surehand: fix\nb\n"
    assert without(moved, [task]) == "new\nlines\na\nb\n"
    assert without("a\nb\n", [task]) == "a\nb\n"
    twice = "# surehand: fix\nx\n# surehand: fix\n"
    assert without(twice, [CommentTask(2, "fix", "# surehand: fix")]) == "# surehand: fix\nx\n"


def test_the_model_is_told_where_the_request_was_and_to_leave_it():
    (task,) = find("x = 1\n# surehand: make it two\n")
    told = described([task], "calc.py")
    assert told.startswith("make it two\n\n")
    assert "calc.py as the comment on line 2" in told and "leave it as it is" in told


# Never empty: a lone CR before an empty line's LF would be one CRLF break.
_LINE = st.text(st.characters(blacklist_categories=["Cs"]), max_size=12).map(
    lambda s: re.sub(r"[\r\n]", "", s) or "."
)
_BREAK = st.sampled_from(["\n", "\r\n", "\r"])


@given(
    st.lists(
        st.one_of(
            st.tuples(_LINE, _BREAK),
            st.tuples(_LINE.map(lambda s: f"# surehand: do {s}x"), _BREAK),
        ),
        max_size=10,
    ),
    st.booleans(),
)
def test_taking_the_tasks_out_leaves_every_other_byte(lines: list[tuple[str, str]], last: bool):
    """Removing the found tasks removes exactly their lines, each with its own break."""
    pieces = [line + brk for line, brk in lines]
    if pieces and last:
        pieces[-1] = lines[-1][0]  # no break after the last line
    text = "".join(pieces)
    tasks = find(text)
    kept = "".join(p for p in pieces if task_of(re.sub(r"[\r\n]+$", "", p)) is None)
    assert without(text, tasks) == kept
