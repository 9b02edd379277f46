"""Differential property tests for edits that share a line and old texts that
start inside a line, in the style of ``test_differential``.

1. Several edits on one line: a random file, one line of it and two or three
   separate pieces of that line (none inside another's), each replaced by its
   own edit of one ``multi_edit``, some quoted with drift (curly quotes or
   straight ones for the file's curly ones, blanks after the piece). The engine refuses, or gives exactly the line with
   every piece replaced; a drift-free request is never refused for its
   location. Pieces that overlap are always refused.
2. An old that starts inside a line: the end of one line (after other text)
   and the whole lines after it, with random changes, its later lines quoted
   with drift (deeper, stripped, tabs as spaces, trailing blanks). The engine
   refuses, or gives exactly the file with the region replaced and the drift
   undone; a drift-free quote is never refused for its location.

The number of examples is ``SUREHAND_FUZZ_EXAMPLES`` (default 150 per test).
"""

from __future__ import annotations

import hypothesis.strategies as st
import pytest
from hypothesis import assume, event, given

from editing import Edit, EditError, Reason, apply_edit, apply_edits
from tests.editing.differential import (
    DRIFTS,
    FUZZ,
    File,
    Region,
    added_line,
    changed_line,
    compact,
    expected,
    files,
    occurs_once,
    uniform_endings,
)

pytestmark = pytest.mark.slow

LOCATION_INDEPENDENT = {Reason.ALREADY_APPLIED, Reason.NO_CHANGE, Reason.PLACEHOLDER}
REPLACEMENTS = ["renamed", "7", "f(a, b)", "x - 1", '"s"', ""]


# -- several edits on one line ---------------------------------------------------


SEGMENTS = [
    "v{i}={n}",
    "call{i}(x,{n})",
    '"str{i}"',
    "{{a{i}:{n}}}",
    "w{i} + {n}",
    "“q{i}”",
    "if(k{i}){{return {n}}}",
]


@st.composite
def minified(draw: st.DrawFn, indent: str) -> tuple[str, list[tuple[int, int]]]:
    """A minified-looking line (numbered segments, so each is unique) and its segments' spans."""
    count = draw(st.integers(3, 7))
    separator = draw(st.sampled_from([";", ",", " ", "; "]))
    parts = [
        draw(st.sampled_from(SEGMENTS)).format(i=i, n=draw(st.sampled_from(["0", "1", "42"])))
        for i in range(count)
    ]
    spans, column = [], len(indent)
    for part in parts:
        spans.append((column, column + len(part)))
        column += len(part) + len(separator)
    return indent + separator.join(parts), spans


@st.composite
def pieces(
    draw: st.DrawFn, segments: list[tuple[int, int]], *, overlapping: bool
) -> list[tuple[int, int]]:
    """Two or three spans, in line order, of one or two segments each (with what
    lies between), apart or touching; with ``overlapping`` the last two overlap."""
    count = draw(st.integers(2, min(3, len(segments) - 1)))
    firsts = sorted(
        draw(
            st.lists(st.integers(0, len(segments) - 1), min_size=count, max_size=count, unique=True)
        )
    )
    spans = []
    for number, first in enumerate(firsts):
        limit = firsts[number + 1] - 1 if number + 1 < len(firsts) else len(segments) - 1
        last = draw(st.integers(first, min(first + 1, limit)))
        spans.append((segments[first][0], segments[last][1]))
    if overlapping:
        (a, b), (_, d) = spans[-2], spans[-1]
        spans[-1] = (draw(st.integers(a, b - 1)), d)  # starts before the previous one ends
    return spans


def _line_with(line: str, spans: list[tuple[int, int]], texts: list[str]) -> str:
    for (start, end), text in sorted(zip(spans, texts, strict=True), reverse=True):
        line = line[:start] + text + line[end:]
    return line


def _piece_drift(data: st.DataObject, piece: str, new: str) -> tuple[str, str, str | None]:
    names = ["blanks"]
    if ('"' in piece or "'" in piece) and not set(piece) & set("“”"):
        names.append("curly")
    if set(piece) & set("“”"):
        names.append("plain")
    name = data.draw(st.sampled_from([None, None, *names]))
    if name == "blanks":
        return piece + "  ", new + "  ", name
    if name == "curly":
        return (
            DRIFTS["curly"](piece, piece, 1) or piece,
            DRIFTS["curly"](new, piece, 1) or new,
            name,
        )
    return piece, new, None


@FUZZ
@given(st.data())
def test_edits_of_one_line_replace_their_pieces_or_are_refused(data: st.DataObject) -> None:
    drawn = data.draw(files(), label="file")
    index = data.draw(st.integers(0, len(drawn.lines) - 1), label="line")
    indent = data.draw(st.sampled_from(["", "    ", "\t"]), label="indent")
    line, segments = data.draw(minified(indent), label="minified")
    trailing = data.draw(st.sampled_from(["", "", " ", "\t"]), label="trailing")
    lines = list(drawn.lines)
    lines[index] = line + trailing
    file = File(lines, drawn.eols, drawn.bom)
    overlapping = data.draw(st.integers(0, 5)) == 0
    spans = data.draw(pieces(segments, overlapping=overlapping), label="pieces")
    view = file.view
    for start, end in spans:
        assume(line[start:end].strip() and occurs_once(view, line[start:end].strip()))
    edits, news, drifts = [], [], []
    for start, end in spans:
        piece = line[start:end]
        new = data.draw(st.sampled_from([r for r in REPLACEMENTS if r != piece]), label="new")
        old, quoted_new, drift = _piece_drift(data, piece, new)
        assume(old.strip() and (new or drift is None))
        edits.append(Edit(old, quoted_new))
        news.append(new)
        drifts.append(drift)
    # A line left blank is emptied, as a single edit would leave it: not this test's matter.
    assume(overlapping or _line_with(line, spans, news).strip())
    order = data.draw(st.permutations(range(len(edits))), label="order")
    event(f"pieces: {len(spans)}; overlapping: {overlapping}")
    for drift in drifts:
        event(f"drift {drift}")
    try:
        result = apply_edits(file.text, [edits[i] for i in order])
    except EditError as error:
        event(f"refused {error.reason}" + (" (overlapping)" if overlapping else ""))
        if not overlapping and not any(drifts):
            assert error.reason in LOCATION_INDEPENDENT, error.message
        return
    assert not overlapping, "overlapping edits were applied"
    event("applied")
    lines = list(file.lines)
    lines[index] = _line_with(file.lines[index], spans, news)
    assert result.text == File(lines, file.eols, file.bom).text, edits


# -- an old that starts inside a line, drift after it ------------------------------


@st.composite
def inside_starts(draw: st.DrawFn, file: File) -> tuple[Region, int, str, list[str]]:
    """A region from inside line ``first`` to the end of a later line: the
    region (whole lines, new lines in the file), the column old starts at,
    old and new's first-line pieces and the later lines' new text."""
    count = len(file.lines)
    assume(count >= 2)
    first = draw(st.integers(0, count - 2))
    line = file.lines[first].rstrip()
    body_start = len(line) - len(line.lstrip(" \t"))
    assume(len(line) - body_start >= 4)
    column = draw(st.integers(body_start + 1, len(line) - 1))
    head = line[column:]
    assume(head.strip() == head and line[body_start:column].strip())
    last = draw(st.integers(first + 2, min(count, first + 5)))
    rest = file.lines[first + 1 : last]
    assume(rest[-1].strip())  # a last line of its own, not a newline read as old's final one
    new_head = head if draw(st.booleans()) else changed_line(draw, head)
    # A changed line has no trailing blanks in the file (see ``differential``).
    assume(new_head == head or file.lines[first] == line)
    new_rest: list[str] = []
    for text in rest:
        action = draw(st.sampled_from(["keep", "keep", "change", "drop", "add"]))
        indent = text[: len(text) - len(text.lstrip(" \t"))]
        if action == "keep":
            new_rest.append(text)
        elif action == "change" and text.strip():
            new_rest.append(changed_line(draw, text))
        elif action == "add":
            new_rest += [text, added_line(draw, indent)]
    assume(new_head != head or new_rest != rest)
    assume(not new_rest or new_rest[-1].strip())  # the same for new
    # Blanks after the last line's text are the file's and stay after new's last line.
    assume(rest[-1] == rest[-1].rstrip() or new_rest[-1:] == rest[-1:])
    first_line = file.lines[first] if new_head == head else line[:column] + new_head
    whole = [first_line, *new_rest]
    return Region(first, last, whole, ends_line=False), column, new_head, new_rest


def _indent_drift(name: str, old_rest: list[str], rest: list[str]) -> list[str] | None:
    leads = [t[: len(t) - len(t.lstrip(" \t"))] for t in old_rest if t.strip()]
    common = min(leads, key=len) if leads else ""
    while common and not all(lead.startswith(common) for lead in leads):
        common = common[:-1]
    out = []
    for text in rest:
        if not text.strip():
            out.append(text)
        elif name == "deeper":
            out.append("    " + text)
        elif name == "stripped":
            if not common or not text.startswith(common):
                return None
            out.append(text[len(common) :])
        elif name == "tabs_as_spaces":
            tabs = len(text) - len(text.lstrip("\t"))
            out.append("    " * tabs + text[tabs:])
        else:  # trailing
            out.append(text + "  ")
    return out


@FUZZ
@given(st.data())
def test_an_old_starting_inside_a_line_replaces_its_region_or_is_refused(
    data: st.DataObject,
) -> None:
    file = data.draw(files(), label="file")
    region, column, new_head, new_rest = data.draw(inside_starts(file), label="region")
    assume(uniform_endings(file, region))
    rest = file.lines[region.first + 1 : region.last]
    ends_line = bool(file.eols[region.last - 1]) and data.draw(st.booleans())
    head = file.lines[region.first].rstrip()[column:]
    old_rest, quoted_rest = list(rest), list(new_rest)
    names = ["deeper", "trailing"]
    if any(t.startswith("\t") for t in rest):
        names.append("tabs_as_spaces")
    if any(t[:1] in " \t" for t in rest if t.strip()):
        names.append("stripped")
    if not all(t == t.rstrip() for t in rest):
        names.remove("trailing")
    drift = data.draw(st.sampled_from([None, *names]), label="drift")
    if drift is not None:
        drifted_old = _indent_drift(drift, rest, rest)
        drifted_new = _indent_drift(drift, rest, new_rest)
        assume(drifted_old is not None and drifted_new is not None)
        old_rest, quoted_rest = drifted_old, drifted_new  # type: ignore[assignment]
    tail = "\n" if ends_line else ""
    old = "\n".join([head, *old_rest]) + tail
    new = "\n".join([new_head, *quoted_rest]) + (tail if quoted_rest or new_head else "")
    assume(old != new)
    core = compact("\n".join([head, *rest]))
    assume(core and occurs_once(compact(file.view), core))
    event(f"drift: {drift}")
    try:
        result = apply_edit(file.text, old, new)
    except EditError as error:
        event(f"refused {error.reason}")
        if drift is None and old in file.view:  # quoted exactly (else its first line lost blanks)
            assert error.reason in LOCATION_INDEPENDENT, error.message
        return
    event("applied")
    assert result.text == expected(file, region), (old, new)
