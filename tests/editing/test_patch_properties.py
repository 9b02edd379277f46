"""Property tests for the patch format (``editing.patch``): what must hold for any input.

1. Batch and streaming parse agree for any split of the text, on valid patch
   texts and on slightly broken ones: the same ``Patch`` (line fields
   included) or the same ``PatchParseError`` (message and line).
2. A rendered ``Patch`` parses back to itself, and its line fields point at
   the rendered headers.
3. Any text gives a ``Patch`` or a ``PatchParseError`` naming a line of the
   text, never another exception, whole or streamed.
"""

from __future__ import annotations

import re
from itertools import pairwise

import hypothesis.strategies as st
import pytest
from hypothesis import example, given, settings

from editing.errors import PatchParseError
from editing.patch import (
    AddFile,
    Chunk,
    DeleteFile,
    Patch,
    PatchStream,
    UpdateFile,
    parse_patch,
    render_patch,
)

PROPERTY = settings(max_examples=200, deadline=None)

# -- outcomes -------------------------------------------------------------------


def located(patch: Patch) -> tuple:
    """``patch`` with the line fields that equality leaves out."""
    out = []
    for op in patch.ops:
        chunks = getattr(op, "chunks", ())
        out.append((op, op.line, tuple((chunk, chunk.line) for chunk in chunks)))
    return tuple(out)


def batch(text: str) -> tuple:
    try:
        return ("patch", located(parse_patch(text)))
    except PatchParseError as error:
        return ("error", error.message, error.line)


def streamed(pieces: list[str]) -> tuple[tuple, list]:
    """The outcome of a stream fed ``pieces``, and the operations its pushes returned."""
    stream = PatchStream()
    pushed = []
    for piece in pieces:
        pushed.extend(stream.push(piece))
    try:
        return ("patch", located(stream.finish())), pushed
    except PatchParseError as error:
        return ("error", error.message, error.line), pushed


@st.composite
def pieces_of(draw, text: str) -> list[str]:
    """``text`` cut at split points drawn by hypothesis (empty pieces included)."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=12)))
    bounds = [0, *cuts, len(text)]
    return [text[start:end] for start, end in pairwise(bounds)]


def line_count(text: str) -> int:
    """How many lines the parser reads from ``text``."""
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


# -- patches ----------------------------------------------------------------------

# Restrictions on generated patches, each because the text would be read as
# something else, not because of a parser bug:
# - a context line whose stripped text is a marker ("*** End Patch",
#   "*** End of File", "*** Add File: ...", "*** Move to: ...", ...) is that
#   marker (markers count even when padded); "+" and "-" lines may hold
#   anything, since their first character is the marker;
# - an anchor that looks like a unified-diff range ("-1,2 +1,3 @@ ...") is
#   read as one;
# - added-file content is printable text without "\r", ending with "\n" (or
#   empty): a last line without "\n" gets one.
_HEADER = re.compile(r"\*\*\* (Add File|Delete File|Update File|Move to):")
_MARKERS = ("*** End Patch", "*** End of File")
_UNIFIED = re.compile(r"-\d+(,\d+)? \+\d+(,\d+)? @@")

TRICKY = [
    "",
    " ",
    "x",
    "    indented",
    "\tdef f():",
    "*** Begin Patch",
    "*** End Patch",
    "*** End of File",
    "*** Add File: a",
    "*** Update File: b.py",
    "*** Move to: c",
    "*** Delete File: d",
    "  *** End Patch  ",
    "***",
    "*** Unknown",
    "@@",
    "@@ def f():",
    "@@ -1,2 +1,3 @@",
    "+",
    "-",
    "EOF",
    "<<EOF",
    "\x0c",
]

paths = st.text("ab/.", min_size=1, max_size=8)
line_texts = st.one_of(
    st.sampled_from(TRICKY),
    st.text(st.characters(exclude_characters="\r\n"), max_size=12),
)
printable = st.text(
    st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp"), include_characters="\t"),
    max_size=12,
)
anchors = st.one_of(st.sampled_from(TRICKY), st.text(max_size=12)).filter(
    lambda a: a and a == a.strip() and "\r" not in a and "\n" not in a and not _UNIFIED.match(a)
)


def is_marker(text: str) -> bool:
    stripped = text.strip()
    return stripped in _MARKERS or bool(_HEADER.match(stripped))


def blank(text: str) -> bool:
    return not text.strip()


def readable_lines(lines: list[tuple[str, str]]) -> bool:
    """Whether a chunk's lines avoid the restrictions above.

    That includes context lines that read back as a blank line of the patch:
    a whitespace-only one anywhere, an empty one at the chunk's start or end
    (blank lines there separate chunks; they are not context).
    """
    for index, (marker, text) in enumerate(lines):
        if marker != " ":
            continue
        if is_marker(text):
            return False
        edge = index in (0, len(lines) - 1)
        if blank(text) and (text or edge):
            return False
    return True


@st.composite
def chunks(draw, *, last: bool) -> Chunk:
    lines = draw(
        st.lists(st.tuples(st.sampled_from(" -+"), line_texts), min_size=1, max_size=5).filter(
            readable_lines
        )
    )
    return Chunk(
        tuple(draw(st.lists(anchors, max_size=2))),
        tuple(lines),
        end_of_file=last and draw(st.booleans()),
    )


@st.composite
def updates(draw) -> UpdateFile:
    count = draw(st.integers(1, 3))
    return UpdateFile(
        draw(paths),
        tuple(draw(chunks(last=index == count - 1)) for index in range(count)),
        move_to=draw(st.none() | paths),
    )


def added_files(texts: st.SearchStrategy[str] = printable) -> st.SearchStrategy[AddFile]:
    contents = st.lists(texts, max_size=5).map(lambda lines: "".join(f"{t}\n" for t in lines))
    return st.builds(AddFile, paths, contents)


def patches() -> st.SearchStrategy[Patch]:
    op = st.one_of(added_files(), st.builds(DeleteFile, paths), updates())
    return st.lists(op, min_size=1, max_size=4).map(lambda ops: Patch(tuple(ops)))


# -- 1. batch and streaming agree ---------------------------------------------------


@st.composite
def valid_texts(draw) -> str:
    """A rendered patch, dressed as a model might send it (all of it still valid)."""
    lines = render_patch(draw(patches())).split("\n")[:-1]
    if draw(st.booleans()):  # blank lines before operations and chunks
        lines = [
            new
            for line in lines
            for new in (
                ["", line]
                if line.startswith(("*** ", "@@"))
                and not line.startswith("*** Move")
                and draw(st.booleans())
                else [line]
            )
        ]
    if draw(st.booleans()):
        opening = draw(st.sampled_from(["<<EOF", "<<'EOF'", 'apply_patch <<"EOF"']))
        lines = [opening, *lines, "EOF"]
    lines = ["  ", *lines] if draw(st.booleans()) else lines
    text = "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n "]))
    return text.replace("\n", "\r\n") if draw(st.booleans()) else text


BROKEN_LINES = [
    "",
    "garbage",
    "*** Modify File: x",
    "*** Add File:",
    "*** Move to: z",
    "*** End of File",
    "*** End Patch",
    "*** Begin Patch",
    "@@",
    "@@ def f():",
    "+added",
    " context",
    "-removed",
    "EOF",
]


@st.composite
def broken_texts(draw) -> str:
    """A valid text with one line dropped, duplicated or replaced."""
    lines = draw(valid_texts()).split("\n")
    index = draw(st.integers(0, len(lines) - 1))
    how = draw(st.sampled_from(["drop", "duplicate", "replace", "strip marker"]))
    if how == "drop":
        del lines[index]
    elif how == "duplicate":
        lines.insert(index, lines[index])
    elif how == "replace":
        lines[index] = draw(st.sampled_from(BROKEN_LINES))
    else:
        lines[index] = lines[index][1:]
    return "\n".join(lines)


def check_stream_agrees(text: str, pieces: list[str]) -> tuple:
    assert "".join(pieces) == text
    whole = batch(text)
    outcome, pushed = streamed(pieces)
    assert outcome == whole
    if whole[0] == "patch":
        ops = [op for op, _, _ in whole[1]]
        # Push returns completed operations in order, each once; all of them
        # once the text has arrived up to a complete last line.
        assert pushed == ops[: len(pushed)]
        if text.endswith("\n"):
            assert pushed == ops
    return whole


@pytest.mark.slow
@PROPERTY
@given(st.data())
def test_batch_and_stream_agree_on_valid_patches(data):
    text = data.draw(valid_texts())
    whole = check_stream_agrees(text, data.draw(pieces_of(text)))
    assert whole[0] == "patch", whole


@pytest.mark.slow
@PROPERTY
@given(st.data())
def test_batch_and_stream_agree_on_broken_patches(data):
    text = data.draw(broken_texts())
    check_stream_agrees(text, data.draw(pieces_of(text)))


@pytest.mark.slow
def test_broken_patches_are_mostly_errors():
    """The broken-text strategy does produce parse errors (else the test above proves little)."""
    outcomes = []

    @settings(max_examples=100, deadline=None, database=None)
    @given(broken_texts())
    def collect(text):
        outcomes.append(batch(text)[0])

    collect()
    assert outcomes.count("error") >= len(outcomes) // 4


# -- 2. a rendered patch parses back to itself ------------------------------------------


def check_round_trip(p: Patch) -> None:
    text = render_patch(p)
    parsed = parse_patch(text)
    assert parsed == p
    lines = text.split("\n")
    for op in parsed.ops:
        kind = {AddFile: "Add", DeleteFile: "Delete", UpdateFile: "Update"}[type(op)]
        assert lines[op.line - 1] == f"*** {kind} File: {op.path}"
        for chunk in getattr(op, "chunks", ()):
            assert lines[chunk.line - 1].startswith("@@")


@pytest.mark.slow
@PROPERTY
@given(patches())
def test_rendered_patch_parses_back_to_itself(p):
    check_round_trip(p)


@pytest.mark.slow
@PROPERTY
@given(
    st.lists(added_files(st.text(st.characters(exclude_characters="\r\n"))), min_size=1).map(
        lambda ops: Patch(tuple(ops))
    )
)
@example(Patch((AddFile("a", "\x0c\n"),)))
def test_rendered_added_file_keeps_any_line_text(p):
    check_round_trip(p)


# -- 3. any text: a patch or the typed error ---------------------------------------------

PATCH_LIKE = [
    "*** Begin Patch",
    "*** End Patch",
    "*** Add File: a",
    "*** Update File: a",
    "*** Delete File: a",
    "*** Move to: b",
    "*** End of File",
    "*** Add File:",
    "*** Bogus",
    "  *** End Patch  ",
    "@@",
    "@@ def f():",
    "@@ -1,2 +1,3 @@",
    "@@ -1,2 +1,3 @@ def g():",
    "+x",
    "-x",
    " x",
    "+",
    "",
    " ",
    "x",
    "<<EOF",
    "apply_patch <<'EOF'",
    "EOF",
    "\r",
]

patch_like_texts = st.lists(
    st.one_of(st.sampled_from(PATCH_LIKE), st.text(max_size=6)), max_size=20
).flatmap(lambda lines: st.sampled_from(["\n", "\r\n"]).map(lambda sep: sep.join(lines)))


def check_any_text(text: str, pieces: list[str]) -> None:
    whole = batch(text)  # any exception but PatchParseError propagates
    if whole[0] == "error":
        line = whole[2]
        assert isinstance(line, int)
        if text:  # the empty text: see test_empty_text_is_reported_at_line_1
            assert 1 <= line <= line_count(text), (line, line_count(text))
    assert streamed(pieces)[0] == whole


@PROPERTY
@given(st.data())
def test_any_text_gives_a_patch_or_a_parse_error(data):
    text = data.draw(st.text())
    check_any_text(text, data.draw(pieces_of(text)))


@PROPERTY
@given(st.data())
def test_any_patch_like_text_gives_a_patch_or_a_parse_error(data):
    text = data.draw(patch_like_texts)
    check_any_text(text, data.draw(pieces_of(text)))
