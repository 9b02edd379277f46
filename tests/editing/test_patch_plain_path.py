"""The patch engine's one-pass paths give what the general paths give.

- ``plain.apply_plain`` (an update whose chunks are all found exactly once)
  gives the very text, diff and level ``chunks.apply_chunks`` gives, and
  gives None whenever the general path refuses; on files full of repeated,
  blank and indented lines, with anchors, ``End of File`` chunks, lines that
  are already there, blank and whitespace-only lines, tabs, CRLF, a BOM;
- a block's end found by a regular expression is the one
  ``indentation.block_end`` finds line by line;
- the parser's direct reading of chunk and ``@@`` lines gives the same
  ``Patch`` or the same error as reading every line the long way.

``SUREHAND_FUZZ_EXAMPLES`` sets how many examples each property runs.
"""

from __future__ import annotations

import os
from collections import Counter

import hypothesis.strategies as st
import pytest
from hypothesis import event, given, settings

from editing import indentation
from editing.document import Document
from editing.errors import EditError, PatchParseError
from editing.patch import Chunk, PatchStream
from editing.patch.anchors import _block_end
from editing.patch.chunks import UpdatedText, apply_chunks
from editing.patch.plain import apply_plain
from tests.editing.test_patch_properties import batch, broken_texts, located, valid_texts

EXAMPLES = int(os.environ.get("SUREHAND_FUZZ_EXAMPLES", "300"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None)

# Few distinct lines, so that chunks repeat across the file and inside each other.
FILE_LINES = [
    "def f():",
    "    x = 1",
    "    y = 2",
    "    return x",
    "",
    "  ",
    "\tx = 1",
    "class A:",
    "    def g(self):",
    "        return 1",
    "x = 1",
    "    x = 1  ",
    "# ... existing code ...",
    "\u201cq\u201d",
]
NEW_LINES = [*FILE_LINES, "    x = 2", "    z = 3", "   ", "\t", "    return x + 1", "tail\r"]


@st.composite
def files(draw: st.DrawFn) -> str:
    numbered = st.integers(0, 7).map(lambda k: f"    v{k} = {k}")
    lines = draw(st.lists(st.sampled_from(FILE_LINES) | numbered, min_size=1, max_size=40))
    text = "\n".join(lines) + draw(st.sampled_from(["\n", "\n", "\n", ""]))
    if draw(st.integers(0, 9)) == 0:
        text = text.replace("\n", "\r\n")
    if draw(st.integers(0, 9)) == 0:
        text = "\ufeff" + text
    return text


@st.composite
def chunk_at(
    draw: st.DrawFn, lines: list[str], span: tuple[int, int], last: bool
) -> tuple[Chunk, int]:
    """A chunk quoting the file's lines from ``start`` on (sometimes not quite),
    and the line after the ones it quotes."""
    after, start = span  # the previous chunk's end, this one's first line
    size = draw(st.integers(1, 5))
    quoted = lines[start : start + size]
    marked: list[tuple[str, str]] = []
    for line in quoted:
        remembered_wrong = draw(st.integers(0, 19)) == 0
        text = draw(st.sampled_from(NEW_LINES)) if remembered_wrong else line
        marked.append((draw(st.sampled_from("  -")), text))
        if draw(st.integers(0, 2)) == 0:
            marked.append(("+", draw(st.sampled_from(NEW_LINES))))
    if not marked or draw(st.integers(0, 3)) == 0:
        marked.insert(0, ("+", draw(st.sampled_from(NEW_LINES))))
    anchors: tuple[str, ...] = ()
    if start > after and draw(st.booleans()):
        anchors = (lines[draw(st.integers(after, start - 1))].strip() or "def f():",)
        if draw(st.integers(0, 4)) == 0:
            anchors = ("class A:", *anchors)
    end_of_file = last and draw(st.integers(0, 3)) == 0
    return Chunk(anchors, tuple(marked), end_of_file), start + len(quoted)


@st.composite
def updates(draw: st.DrawFn) -> tuple[str, tuple[Chunk, ...]]:
    text = draw(files())
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()  # a final newline ends the last line
    count = draw(st.integers(1, 4))
    chunks: list[Chunk] = []
    at = 0
    for index in range(count):
        if at == len(lines) and chunks:
            break
        start = draw(st.integers(at, max(at, len(lines) - 1)))
        chunk, at = draw(chunk_at(lines, (at, start), index == count - 1))
        chunks.append(chunk)
    return text, tuple(chunks)


def general(text: str, chunks: tuple[Chunk, ...]) -> UpdatedText | EditError:
    try:
        return apply_chunks(text, chunks, "src/file.py", "src/moved.py")
    except EditError as error:
        return error


@FUZZ
@given(updates())
def test_the_plain_path_gives_what_the_general_path_gives(update) -> None:
    text, chunks = update
    fast = apply_plain(Document(text), chunks, "src/file.py", "src/moved.py")
    expected = general(text, chunks)
    if fast is None:
        event(f"general: {type(expected).__name__}")
        return
    event("plain")
    assert not isinstance(expected, EditError), expected.message
    assert fast == expected


def test_the_plain_path_is_taken_often_and_left_when_it_must() -> None:
    """The strategy above exercises both sides: plain results and general ones."""
    taken: Counter[str] = Counter()

    @settings(max_examples=200, deadline=None, database=None)
    @given(updates())
    def collect(update) -> None:
        text, chunks = update
        fast = apply_plain(Document(text), chunks, "a.py")
        taken["plain" if fast is not None else type(general(text, chunks)).__name__] += 1

    collect()
    assert taken["plain"] >= 20, taken
    assert taken["UpdatedText"] >= 10, taken  # applied, but not the plain way
    assert sum(n for kind, n in taken.items() if kind not in ("plain", "UpdatedText")) >= 20


def test_a_splice_at_every_kind_of_place_matches_the_general_path() -> None:
    """Hand-picked cases: neighbouring chunks (one hunk), far ones (two), the
    last line, a whitespace-only new line, a deletion of everything."""
    text = "".join(f"def f{n}():\n    x = 1\n    return x\n\n" for n in range(12))
    cases = [
        (
            Chunk(
                ("def f1():",), ((" ", "    x = 1"), ("-", "    return x"), ("+", "    return 2"))
            ),
        ),
        tuple(
            Chunk((f"def f{n}():",), (("-", "    x = 1"), ("+", "    x = 2"), ("+", "   ")))
            for n in (0, 1, 5, 11)
        ),
        (Chunk((), ((" ", "    return x"), ("-", ""), ("+", "# end")), end_of_file=True),),
        (Chunk((), tuple(("-", line) for line in text.split("\n")[:-1])),),
    ]
    for chunks in cases:
        fast = apply_plain(Document(text), chunks, "f.py")
        assert fast is not None
        assert fast == apply_chunks(text, chunks, "f.py")


# -- block ends ----------------------------------------------------------------------

BLOCK_LINES = [
    "x",
    " x",
    "  x",
    "    x",
    "\tx",
    " \tx",
    "  \t x",
    "",
    " ",
    "\t",
    "\u00a0x",
    " \x0c",
]


@FUZZ
@given(st.lists(st.sampled_from(BLOCK_LINES), max_size=10), st.booleans(), st.integers(1, 9))
def test_a_block_ends_where_indentation_says(lines: list[str], final: bool, width: int) -> None:
    view = "\n".join(lines) + ("\n" if final and lines else "")
    starts = [0, len(view)] + [i + 1 for i, char in enumerate(view) if char == "\n"]
    for pos in starts:
        assert _block_end(view, pos, width) == indentation.block_end(view, pos, width)


# -- the parser ---------------------------------------------------------------------


def read_line_by_line(text: str) -> tuple:
    """The outcome of reading every line through ``PatchStream._read`` (no direct path)."""
    stream = PatchStream()
    *complete, rest = text.split("\n")
    for line in complete:
        stream._read(line)
    stream._buffer = rest
    try:
        return ("patch", located(stream.finish()))
    except PatchParseError as error:
        return ("error", error.message, error.line)


@pytest.mark.slow
@FUZZ
@given(st.one_of(valid_texts(), broken_texts()))
def test_reading_chunk_lines_directly_changes_nothing(text: str) -> None:
    assert batch(text) == read_line_by_line(text)
