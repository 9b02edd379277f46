"""The engine's shortcuts for plain inputs give what the general code gives.

- ``elision.markers`` looks only at lines with dots or an elision word: it
  finds what testing every line finds;
- ``Document.lines_between`` of a file without CRLF is its lines, each with
  LF but a last one the span stops short of;
- ``build`` writes an exact, LF-only match as a plain splice (and one-line
  text inside a line as that line with old's places replaced): the same
  replacement (text, span, opcodes) as the general write, and so the same
  edit results and refusals;
- a patch line read as a plain chunk line is read as the general checks
  read it; a block ends where the first shallower line starts, as before;
- the compact form of a text (no blanks) for the already-applied check is
  the text split at its blanks and joined;
- runs counted at the indentation level in one pass when no line has old's
  text at another depth are the number of matches.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar
from unittest.mock import patch

import hypothesis.strategies as st
from hypothesis import example, given, settings

from editing import (
    EditError,
    applied,
    apply_edit,
    counting,
    elision,
    indentation,
    matcher,
    punctuation,
    replacement,
    report,
)
from editing.document import Document, Line
from editing.errors import PatchParseError
from editing.matches import Level
from editing.patch import apply_patch
from editing.patch.parser import PatchStream, parse_patch

EXAMPLES = settings(max_examples=300, deadline=None, database=None)

MARKERISH = [
    "# ... existing code ...",
    "    // ... rest of the function unchanged",
    "...",
    "…",
    "/* ... */",
    "# wait for ... then retry",
    "# REST of the body is unchanged",
    "# Existing Code",
    "# \u017fame as before ...",  # a long s, which IGNORECASE reads as s
    "# pre\u212avious code",  # a Kelvin sign
    "# previous code",
    "    ...",
    "def f():",
    "x = 1",
    "",
    "  ",
    "restart()",
    "# rest",
    "..",
]


def _reference_markers(text: str, *, stubs: bool) -> list[int]:
    lines = text.split("\n")
    return [
        i
        for i, line in enumerate(lines)
        if elision.is_marker(line) and (stubs or not elision._is_python_stub(lines, i))
    ]


@EXAMPLES
@given(st.lists(st.sampled_from(MARKERISH), max_size=12), st.booleans())
def test_markers_are_those_of_every_line_tested(lines: list[str], stubs: bool) -> None:
    text = "\n".join(lines)
    assert elision.markers(text, stubs=stubs) == _reference_markers(text, stubs=stubs)


LINES = ["a", "  a", "\ta", "a  ", "b", "  b", "", "  ", "a b", "\u201ca\u201d", "c = 1"]


@st.composite
def lf_texts(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.sampled_from(LINES), min_size=1, max_size=10))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@EXAMPLES
@given(st.data())
def test_lines_between_of_an_lf_file(data: st.DataObject) -> None:
    text = data.draw(lf_texts())
    doc = Document(text)
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    start = data.draw(st.sampled_from(starts))
    ends_line = data.draw(st.booleans())
    later = [s for s in starts if s > start] if ends_line else []
    if ends_line and not later:
        ends_line = False
    end = data.draw(st.sampled_from(later)) if ends_line else doc.line_end(start)
    parts = text[start:end].split("\n")
    if ends_line:
        parts.pop()
    expected = [
        Line(p, "\n" if ends_line or i < len(parts) - 1 else "") for i, p in enumerate(parts)
    ]
    assert doc.lines_between(start, end, ends_line=ends_line) == expected


@contextmanager
def _general_write() -> Iterator[None]:
    """Every replacement written by the general code (the reference)."""
    with (
        patch.object(replacement, "_is_plain_splice", lambda *_: False),
        patch.object(replacement, "_is_inside_one_line", lambda *_: False),
    ):
        yield


T = TypeVar("T")


def _outcome(call: Callable[[], T]) -> T | tuple[str, str]:
    try:
        result = call()
    except EditError as error:
        return type(error).__name__, error.message
    return result


def _edit_outcome(text: str, old: str, new: str, replace_all: bool) -> object:
    result = _outcome(lambda: apply_edit(text, old, new, replace_all=replace_all, path="f.py"))
    if isinstance(result, tuple):
        return result
    return (
        result.text,
        result.diff,
        result.changed,
        result.regions,
        result.written,
        result.replaced,
    )


@st.composite
def edits(draw: st.DrawFn) -> tuple[str, str, str, bool]:
    text = draw(lf_texts())
    lines = text.split("\n")
    start = draw(st.integers(0, len(lines) - 1))
    picked = lines[start : start + draw(st.integers(1, 3))]
    kind = draw(st.sampled_from(["lines", "fragment"]))
    if kind == "fragment":
        old = draw(st.sampled_from(["a", "b", "a b", " a", "c = 1", "= 1"]))
    else:
        old = "\n".join(picked) + draw(st.sampled_from(["", "\n"]))
    new_lines = draw(st.lists(st.sampled_from([*LINES, "a  # x", "   "]), max_size=4))
    new = "\n".join(new_lines) + draw(st.sampled_from(["", "\n"]))
    return text, old, new, draw(st.booleans())


@EXAMPLES
@given(edits())
@example(("  a\n", "a", "  ", False))  # a line left blank: emptied
@example(("  a b\nb\n", "b", "c", True))
def test_a_plain_splice_is_the_general_write(edit: tuple[str, str, str, bool]) -> None:
    text, old, new, replace_all = edit
    fast = _edit_outcome(text, old, new, replace_all)
    with _general_write():
        general = _edit_outcome(text, old, new, replace_all)
    assert fast == general


@EXAMPLES
@given(st.data())
def test_a_patch_written_by_plain_splices_is_the_general_one(data: st.DataObject) -> None:
    text = data.draw(lf_texts())
    lines = text.rstrip("\n").split("\n")
    start = data.draw(st.integers(0, len(lines) - 1))
    context = lines[start : start + data.draw(st.integers(1, 3))]
    added = data.draw(st.lists(st.sampled_from([*LINES, "   "]), max_size=3))
    body = [" " + line for line in context[:1]] + ["-" + line for line in context[1:]]
    body += ["+" + line for line in added]
    patch_text = "\n".join(["*** Begin Patch", "*** Update File: f.py", "@@", *body])
    patch_text += "\n*** End Patch\n"

    def run() -> object:
        result = _outcome(lambda: apply_patch(patch_text, lambda p: text if p == "f.py" else None))
        return result if isinstance(result, tuple) else (result.files, result.level)

    fast = run()
    with _general_write():
        assert run() == fast


DEPTHS = [
    "a",
    "  a",
    "    a",
    "\ta",
    "  a  ",
    " \ta",
    "\u00a0a",
    "a\u00a0",
    "  b",
    "b",
    "",
    "  ",
    "aa",
]


@st.composite
def indented_runs(draw: st.DrawFn) -> tuple[str, str]:
    text = "\n".join(draw(st.lists(st.sampled_from(DEPTHS), max_size=14)))
    text += draw(st.sampled_from(["", "\n"]))
    old_lines = draw(
        st.lists(st.sampled_from(["a", "  a", "b", "    b", "", "aa"]), min_size=2, max_size=3)
    )
    return text, "\n".join(old_lines) + draw(st.sampled_from(["", "\n"]))


@EXAMPLES
@given(indented_runs())
def test_the_one_pass_count_at_one_indentation_is_the_number_of_matches(
    case: tuple[str, str],
) -> None:
    text, old = case
    doc = Document(text)
    counted = counting.whole_lines(doc.view, old, indented=True)
    found = matcher.find(doc, old, Level.INDENTATION)
    # The one-pass count is of whole-line matches; those starting inside a line add to it.
    assert counted == len([match for match in found if not match.fragment])
    assert matcher._count(doc, old, Level.INDENTATION) == len(found)


PATCH_LINES = [
    "*** Begin Patch",
    "*** Update File: f.py",
    "*** Add File: g.py",
    "*** End of File",
    "*** End Patch",
    " *** End Patch",
    "- *** Update File: h.py",
    "+*** nothing",
    "@@",
    "@@ def f():",
    " a",
    "-a",
    "+b",
    "+",
    " ",
    "",
    "EOF",
    " EOF",
    "x",
]


@EXAMPLES
@given(
    st.lists(st.sampled_from(PATCH_LINES), max_size=12),
    st.sampled_from(["", "cat <<'EOF' | apply_patch\n"]),
)
def test_a_patch_parsed_with_plain_chunk_lines_is_the_general_parse(
    lines: list[str], wrapper: str
) -> None:
    text = wrapper + "\n".join(["*** Begin Patch", "*** Update File: f.py", *lines]) + "\n"

    def parse() -> object:
        try:
            return parse_patch(text)
        except PatchParseError as error:
            return error.message

    fast = parse()
    with patch.object(PatchStream, "_is_plain_chunk_line", lambda *_: False):
        assert parse() == fast


@EXAMPLES
@given(
    st.lists(
        st.sampled_from(["x", "  x", "    x", "\tx", "  \tx", "        x", "", "   "]), max_size=10
    ),
    st.integers(1, 9),
)
def test_block_end_is_the_first_shallower_line(lines: list[str], width: int) -> None:
    view = "\n".join(lines)
    pos, expected = 0, len(view)
    for line in lines:
        if line.strip() and indentation.columns(line) < width:
            expected = pos
            break
        pos += len(line) + 1
    assert indentation.block_end(view, 0, width) == expected


@EXAMPLES
@given(st.text(st.sampled_from("ab \t\n\r\x0b\x0c\x1c\x1f\u00a0\u2003\u201c-")))
def test_compact_text_is_the_text_split_at_blanks(text: str) -> None:
    assert applied._compact(text) == "".join(punctuation.fold(text).split())


@contextmanager
def _general_report() -> Iterator[None]:
    """Every region of the report read and aligned, every hunk written from its
    window's opcodes (the reference)."""
    with (
        patch.object(report, "_group_diff", report._windowed_diff),
        patch.object(report, "_is_line_swap", lambda *_: False),
    ):
        yield


@st.composite
def line_swaps(draw: st.DrawFn) -> tuple[str, str, str, bool]:
    """A ``replace_all`` (or a single edit) of one line's text in a file where it repeats."""
    line_ending = draw(st.sampled_from(["\n", "\r\n"]))
    lines = draw(
        st.lists(st.sampled_from(["x = 1", "x = 1 or 0", "y", "", "  x = 1"]), max_size=30)
    )
    text = line_ending.join(lines) + draw(st.sampled_from(["", line_ending]))
    old = draw(st.sampled_from(["x = 1", "x = 1\n", "1", "y\n", "y"]))
    new = draw(st.sampled_from(["x = 1 or 0", "x = 2\n", "2", "z\n", "", "y\ny\n"]))
    return text, old, new, draw(st.booleans())


@EXAMPLES
@given(st.one_of(line_swaps(), edits()))
@example(("x = 1\nx = 1\ny\n", "x = 1", "x = 2", True))  # neighbouring lines: one run
@example(("x = 1\n" + "y\n" * 7 + "x = 1\n", "x = 1", "x = 2", True))  # a gap of 7: two hunks
@example(("x = 1\n" + "y\n" * 6 + "x = 1", "x = 1", "x = 2", True))  # a gap of 6: one hunk
def test_a_report_of_line_swaps_is_the_general_report(edit: tuple[str, str, str, bool]) -> None:
    text, old, new, replace_all = edit
    fast = _edit_outcome(text, old, new, replace_all)
    with _general_report():
        general = _edit_outcome(text, old, new, replace_all)
    assert fast == general
