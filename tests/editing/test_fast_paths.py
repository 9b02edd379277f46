"""The engine's fast paths agree with simple references, on files full of repeats.

- a scoped search finds what a search of the whole file finds in that scope,
  and a search that stops early finds the first of those;
- a count without building matches is the number of matches;
- the one-pass already-applied check pairs each match with the copy the
  every-copy check gives;
- the line diff of long blocks is a diff (its equal lines are equal, it
  turns old into new) and short ones are difflib's, as before;
- the report's diff, from the diff the edit was written from, turns the old
  lines it shows into the new ones.
"""

from __future__ import annotations

import difflib
import re

import hypothesis.strategies as st
from hypothesis import given, settings

from editing import EditError, apply_edit, counting, exact_search, indentation, line_diff, matcher
from editing.applied import _inside_each, inside_new
from editing.document import Document
from editing.matcher import Scope
from editing.matches import Level, Located

EXAMPLES = settings(max_examples=150, deadline=None, database=None)

# Few distinct lines, so that everything repeats and overlaps.
LINES = ["a", "  a", "\ta", "a  ", "    a", "b", "  b", "", "  ", "a b", " a"]
LINES += ["\u201ca\u201d", "a\u00a0", "\u2003a", "a\r"]  # typographic, odd spaces, a lone CR


@st.composite
def texts(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.sampled_from(LINES), min_size=0, max_size=14))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@st.composite
def olds(draw: st.DrawFn, text: str) -> str:
    """Old as a model quotes it: lines of the file (maybe re-indented or with
    trailing blanks), or lines made up, or a fragment of a line."""
    lines = text.split("\n")
    kind = draw(st.sampled_from(["slice", "made", "fragment"]))
    if kind == "fragment":
        return draw(st.sampled_from(["a", " a", "a ", "b", "a b", "  a", "\u201ca\u201d", '"a"']))
    if kind == "slice" and lines:
        start = draw(st.integers(0, len(lines) - 1))
        picked = lines[start : start + draw(st.integers(1, 3))]
    else:
        picked = draw(st.lists(st.sampled_from(LINES), min_size=1, max_size=3))
    drift = draw(st.sampled_from(["", "indent", "trailing"]))
    if drift == "indent":
        picked = ["  " + line if line.strip() else line for line in picked]
    elif drift == "trailing":
        picked = [line + " " for line in picked]
    return "\n".join(picked) + draw(st.sampled_from(["", "\n"]))


# -- references ----------------------------------------------------------------


def _view_lines(view: str) -> list[tuple[int, str]]:
    """Every line's start and text; a final newline starts no line."""
    out, pos = [], 0
    for line in view.split("\n"):
        out.append((pos, line))
        pos += len(line) + 1
    if view.endswith("\n"):
        out.pop()
    return out


def _naive_exact(view: str, old: str) -> list[int]:
    if not old:
        return []
    starts = []
    for start in range(len(view)):
        if not view.startswith(old, start):
            continue
        line_start = view.rfind("\n", 0, start) + 1
        if old[0] in " \t" and line_start < start and not view[line_start:start].strip(" \t"):
            continue
        starts.append(start)
    body = old[:-1]
    if old.endswith("\n") and body.strip() and not view.endswith("\n") and view.endswith(body):
        start = len(view) - len(body)
        line_start = view.rfind("\n", 0, start) + 1
        inside = line_start < start and not view[line_start:start].strip(" \t")
        if not (old[0] in " \t" and inside):
            starts.append(start)
    return starts


def _naive_lines(view: str, old: str, level: Level) -> list[int]:
    old_lines = old.split("\n")
    if old_lines[-1] == "":
        old_lines.pop()
    key = str.rstrip if level == Level.TRAILING_WHITESPACE else lambda s: s.lstrip(" \t").rstrip()
    keys = [key(line) for line in old_lines]
    if not max(keys, key=len):
        return []
    lines = _view_lines(view)
    starts = []
    for first in range(len(lines) - len(keys) + 1):
        window = lines[first : first + len(keys)]
        if any(key(text) != k for (_, text), k in zip(window, keys, strict=True)):
            continue
        if level == Level.INDENTATION:
            pairs = [
                (indentation.leading(model), indentation.leading(text))
                for model, (_, text) in zip(old_lines, window, strict=True)
                if model.strip()
            ]
            if indentation.infer(pairs) is None:
                continue
        starts.append(window[0][0])
    return starts


# -- scoped and early-stopping searches ----------------------------------------------


@EXAMPLES
@given(st.data())
def test_scoped_search_is_the_whole_search_in_that_scope(data: st.DataObject) -> None:
    text = data.draw(texts())
    old = data.draw(olds(text))
    doc = Document(text)
    first = data.draw(st.integers(0, len(doc.view) + 1))
    last = data.draw(st.none() | st.integers(first, len(doc.view) + 1))
    for level in (Level.EXACT, Level.TRAILING_WHITESPACE, Level.INDENTATION, Level.PUNCTUATION):
        everything = matcher.find(doc, old, level)
        expected = [m for m in everything if m.start >= first and (last is None or m.start <= last)]
        assert matcher.find(doc, old, level, first, last) == expected, level


@EXAMPLES
@given(st.data())
def test_a_search_stopping_early_finds_the_first_matches_and_counts_all(
    data: st.DataObject,
) -> None:
    text = data.draw(texts())
    old = data.draw(olds(text))
    doc = Document(text)
    first = data.draw(st.integers(0, len(doc.view)))
    scope = data.draw(
        st.sampled_from(
            [
                matcher.EVERYWHERE,
                Scope(first),
                Scope(first, first + 6),
                Scope(first, None, whole_lines=True),
                Scope(first, None, whole_lines=True, at_end=True),
            ]
        )
    )
    limit = data.draw(st.integers(1, 4))
    full = _reference_locate(doc, old, scope)
    for count in (True, False):
        found = matcher.locate(doc, old, scope, limit, count=count)
        if full is None:
            assert found is None
            continue
        assert found is not None
        assert found.level == full.level and found.matches == full.matches[:limit]
        if count:
            assert found.count == len(full.matches)
        assert found.complete == (
            len(full.matches) < limit or (count and len(full.matches) == limit)
        )


def _reference_locate(doc: Document, old: str, scope: Scope) -> Located | None:
    """The ladder over whole-file searches, filtered by scope (no escapes in these olds)."""
    for level in (Level.EXACT, Level.TRAILING_WHITESPACE, Level.INDENTATION, Level.PUNCTUATION):
        matches = [m for m in matcher.find(doc, old, level) if scope.admits(doc, m)]
        if matches:
            return Located(level, tuple(matches), old)
    return None


@EXAMPLES
@given(st.data())
def test_whole_file_search_is_the_naive_one(data: st.DataObject) -> None:
    text = data.draw(texts())
    old = data.draw(olds(text))
    doc = Document(text)
    assert [m.start for m in matcher.find(doc, old, Level.EXACT)] == _naive_exact(doc.view, old)
    if "\n" in old:
        for level in (Level.TRAILING_WHITESPACE, Level.INDENTATION):
            # whole lines only: a multi-line old may also be found starting inside a line
            # (the partial-start pass), which the naive search does not look for
            found = [m.start for m in matcher.find(doc, old, level) if doc.starts_line(m.start)]
            assert found == _naive_lines(doc.view, old, level), level


# -- counts --------------------------------------------------------------------------------


@EXAMPLES
@given(st.data())
def test_counts_are_the_number_of_matches(data: st.DataObject) -> None:
    text = data.draw(texts())
    old = data.draw(olds(text))
    doc = Document(text)
    exact = counting.exact(doc.view, old)
    assert exact is None or exact == len(matcher.find(doc, old, Level.EXACT))
    assert exact is None or exact == len(_naive_exact(doc.view, old))
    if "\n" in old:
        for level, indented in ((Level.TRAILING_WHITESPACE, False), (Level.INDENTATION, True)):
            counted = counting.whole_lines(doc.view, old, indented=indented)
            found = matcher.find(doc, old, level)
            # Whole-line matches; those starting inside a line are counted apart.
            assert counted == len([match for match in found if not match.fragment]), level
            assert matcher._count(doc, old, level) == len(found), level


def test_an_ambiguous_refusal_names_twenty_places_and_counts_the_rest() -> None:
    text = "x = 1\n" * 25
    try:
        apply_edit(text, "x = 1\n", "x = 2\n")
    except EditError as error:
        message = error.message
    else:
        raise AssertionError("applied")
    assert "old matches 25 places (lines 1, 2, 3" in message
    assert "20, and 5 more)" in message


def test_an_ambiguous_refusal_at_the_indentation_level_counts_every_run() -> None:
    text = "    x = 1\n" * 30 + "\tx = 1\n  x = 1\n"
    try:
        apply_edit(text, "  x = 1\n  x = 1\n", "  x = 2\n")
    except EditError as error:
        found = re.search(r"matches (\d+) places", error.message)
    else:
        raise AssertionError("applied")
    doc = Document(text)
    assert found is not None
    assert int(found[1]) == len(matcher.find(doc, "  x = 1\n  x = 1\n", Level.INDENTATION))


# -- already applied ------------------------------------------------------------------------


@EXAMPLES
@given(st.data())
def test_the_already_applied_check_pairs_matches_as_the_every_copy_check(
    data: st.DataObject,
) -> None:
    text = data.draw(texts())
    old = data.draw(olds(text))
    extra = data.draw(st.sampled_from([" b", "\nb", "a", "\n  a", " a b"]))
    new = data.draw(st.sampled_from([old + extra, extra + old, old + extra + old]))
    doc = Document(text)
    located = matcher.locate(doc, old)
    if located is None:
        return
    expected = (
        _inside_each(located.matches, matcher.find(doc, new, located.level))
        if new.strip() and "".join(old.split()) in "".join(new.split())
        else {}
    )
    assert inside_new(doc, located, new) == expected


# -- line diff and report ------------------------------------------------------------------


def _check_diff(old: list[str], new: list[str], opcodes: list[line_diff.Opcode]) -> None:
    i = j = 0
    out: list[str] = []
    for tag, i1, i2, j1, j2 in opcodes:
        assert (i1, j1) == (i, j)
        if tag == "equal":
            assert old[i1:i2] == new[j1:j2]
        out += new[j1:j2]
        i, j = i2, j2
    assert (i, j) == (len(old), len(new)) and out == new


def _old_line_opcodes(old: list[str], new: list[str]) -> list[line_diff.Opcode]:
    """The line diff as it was: common ends, then difflib on the middle."""
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    middle = difflib.SequenceMatcher(
        None, old[head : len(old) - tail], new[head : len(new) - tail], autojunk=False
    ).get_opcodes()
    opcodes: list[line_diff.Opcode] = [("equal", 0, head, 0, head)] if head else []
    opcodes += [(t, i1 + head, i2 + head, j1 + head, j2 + head) for t, i1, i2, j1, j2 in middle]
    if tail:
        opcodes.append(("equal", len(old) - tail, len(old), len(new) - tail, len(new)))
    return opcodes


line_lists = st.lists(st.sampled_from(["a", "b", "c", "", "x = 1", "return"]), max_size=30)


@EXAMPLES
@given(line_lists, line_lists)
def test_a_short_line_diff_is_difflibs(old: list[str], new: list[str]) -> None:
    assert line_diff.line_opcodes(old, new) == _old_line_opcodes(old, new)


@EXAMPLES
@given(st.data())
def test_a_long_line_diff_is_a_diff(data: st.DataObject) -> None:
    old = [f"u{i}" if data.draw(st.booleans()) else "same" for i in range(600)]
    new = list(old)
    for _ in range(data.draw(st.integers(0, 40))):
        at = data.draw(st.integers(0, len(new)))
        action = data.draw(st.sampled_from(["insert", "delete", "change"]))
        if action == "insert":
            new.insert(at, data.draw(st.sampled_from(["same", "new", "u3"])))
        elif new and at < len(new):
            if action == "delete":
                del new[at]
            else:
                new[at] = "changed"
    opcodes = line_diff.line_opcodes(old, new)
    _check_diff(old, new, opcodes)
    assert line_diff.merged(opcodes) == opcodes


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$")


@EXAMPLES
@given(st.data())
def test_the_reports_diff_turns_the_old_lines_into_the_new(data: st.DataObject) -> None:
    lines = data.draw(st.lists(st.sampled_from([*LINES, "c", "d"]), min_size=1, max_size=30))
    text = "\n".join(lines) + "\n"
    old = data.draw(st.sampled_from([line for line in lines if line.strip()] or ["zz"]))
    new = data.draw(st.sampled_from(["c", "d\nd", "", "a\nq", old + "\nc"]))
    try:
        result = apply_edit(text, old, new, replace_all=True)
    except EditError:
        return
    # The diff shows lines as the matcher sees them (CRLF as LF).
    before = Document(text).view.split("\n")[:-1]
    after = Document(result.text).view.split("\n")[:-1]
    diff = result.diff.split("\n")[2:-1]
    index = 0
    while index < len(diff):
        header = _HUNK.match(diff[index])
        assert header, diff[index]
        a, b, c, d = (int(g) if g is not None else 1 for g in header.groups())
        index += 1
        body = []
        while index < len(diff) and not diff[index].startswith("@@"):
            body.append(diff[index])
            index += 1
        shown_old = [line[1:] for line in body if line[:1] in " -"]
        shown_new = [line[1:] for line in body if line[:1] in " +"]
        assert shown_old == before[max(a - 1, 0) : max(a - 1, 0) + b] or (b == 0 and not shown_old)
        assert shown_new == after[max(c - 1, 0) : max(c - 1, 0) + d] or (d == 0 and not shown_new)


def _inside_indentation_by_line(view: str, pos: int) -> bool:
    """The rule as it reads: past the line's start, nothing but blanks before ``pos`` on it."""
    line_start = view.rfind("\n", 0, pos) + 1
    return line_start < pos and not view[line_start:pos].strip(" \t")


@EXAMPLES
@given(st.text(alphabet=" \t\nx\r", max_size=40), st.data())
def test_inside_indentation_reads_back_over_blanks_only(view: str, data: st.DataObject) -> None:
    pos = data.draw(st.integers(0, len(view)))
    assert exact_search._inside_indentation(view, pos) == _inside_indentation_by_line(view, pos)


BLOCK_LINES = st.sampled_from(
    ["  v = 1", "  v = 1 ", "  v = 1\t", "  v = 12", "    v = 1", "", "x"]
)


@EXAMPLES
@given(st.lists(BLOCK_LINES, max_size=30), st.integers(1, 4), st.booleans())
def test_runs_of_one_repeated_line_are_counted_from_its_blocks(
    lines: list[str], size: int, final_newline: bool
) -> None:
    text = "\n" + "\n".join(lines) + ("\n" if final_newline and lines else "")
    keys, leads = ("v = 1",) * size, ("  ",) * size
    assert counting._count_at(text, keys, leads) == len(counting._runs(keys, leads).findall(text))


def test_old_whose_lines_cannot_be_paired_with_the_files_is_refused_not_crashed() -> None:
    """A match starting inside a line, found with folded punctuation, whose old ends in a
    space-only line: its lines and the file's differ in number, so the edit is refused."""
    from editing import apply_edit
    from editing.errors import Ambiguous

    text = 'x = 1\ny = "a"\n  \n'
    try:
        apply_edit(text, "1\ny = “a“\n ", "1\ny = “a“\nw\n")
    except Ambiguous as refused:
        assert "Quote old as whole lines" in refused.message and refused.line == 1
    else:
        raise AssertionError("the edit was applied")
