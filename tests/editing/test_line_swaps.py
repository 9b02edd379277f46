"""A one-line ``replace_all`` written in one pass gives the general path's result.

``apply_edits`` writes an exact ``replace_all`` of one line of text by another
in one pass (``editing.line_swaps``), and several such edits of other lines
together; the general path plans, builds and reports each place. On
generated files full of old, new, copies of new, overlapping and
neighbouring places, CRLF, lone CRs, a BOM, no final newline, the two must
agree on everything: the text, the count, the level, the notes, the changed
lines, the regions, the diff, or the refusal. ``SUREHAND_SWAP_EXAMPLES``
sets the number of examples (300 by default).
"""

from __future__ import annotations

import os
from collections.abc import Callable

import hypothesis.strategies as st
from hypothesis import event, given, settings

from editing import EditError, apply_edit, line_swaps
from editing.document import Document
from editing.edit import EditResult, _apply_planned, apply_edits
from editing.edit_request import Edit

EXAMPLES = settings(
    max_examples=int(os.environ.get("SUREHAND_SWAP_EXAMPLES", "300")), deadline=None, database=None
)

OLDS = ["a", "ab", "aa", " a", "a ", "\ta", "b a", "a(b)", "\u201ca\u201d", "  a", "a a", "e"]
OTHER_OLDS = ["a\r\nb", "a\n", "\na", "a\r", "  "]


def _news(old: str) -> list[str]:
    """New texts around old: holding it once or more, held by it, unrelated."""
    return [
        old + " or 0",
        "b" + old,
        old + old,
        old + "b" + old,
        old + old + old,
        " " + old,
        "\t" + old,
        old[:1],  # old holds new
        old[1:] or "b",
        old[:-1] + "b" + old[-1:],
        "b",
        "a",
        "aa",
        "a a",
        "x" + old + "y",
        old + "\u0301x",  # holds old, yet not once folded (composed: e and the accent)
    ]


# New texts the one pass leaves to the general path.
OTHER_NEWS = ["", " ", "\t", "a\n", "a\r\nb", "x\ry", "\n"]


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, str, str]:
    old = draw(st.sampled_from(OLDS * 4 + OTHER_OLDS))
    new = draw(st.sampled_from(_news(old) * 4 + OTHER_NEWS))
    return draw(files([old, new, new, old + old])), old, new


@st.composite
def multi_cases(draw: st.DrawFn) -> tuple[str, list[Edit]]:
    """Two or three edits (most of them replace_all) and a file holding their texts."""
    # Names apart most often (edits of other lines), else texts that share lines.
    pool = draw(st.sampled_from([["foo", "bar", "baz", " qux", "\tquux"]] * 3 + [OLDS]))
    olds = draw(st.lists(st.sampled_from(pool), min_size=2, max_size=3))
    edits = []
    for old in olds:
        new = draw(st.sampled_from(_news(old) * 12 + OTHER_NEWS))
        edits.append(Edit(old, new, replace_all=draw(st.sampled_from([True] * 12 + [False]))))
    texts = [text for edit in edits for text in (*[edit.old] * 4, edit.new)]
    per_line = draw(st.sampled_from([1, 1, 2]))
    return draw(files(texts, lines=(4, 24), per_line=per_line)), edits


@st.composite
def files(
    draw: st.DrawFn, texts: list[str], lines: tuple[int, int] = (0, 14), per_line: int = 4
) -> str:
    """A file of lines made of ``texts`` and a few others, its line endings LF,
    CRLF or both, with or without a final newline and a BOM."""
    tokens = [*texts, "a", "b", " ", "\t", "aa", "x", "\u201ca\u201d", "e\u0301"]
    tokens += draw(st.sampled_from([[]] * 7 + [["\r"]]))  # a lone CR, now and then
    bodies = []
    for _ in range(draw(st.integers(*lines))):
        indent = draw(st.sampled_from(["", "", "  ", "\t", "    "]))
        bodies.append(indent + "".join(draw(st.lists(st.sampled_from(tokens), max_size=per_line))))
    endings = draw(st.sampled_from(["lf"] * 8 + ["crlf", "mixed"]))
    parts = []
    for index, body in enumerate(bodies):
        eol = "\n"
        if endings == "crlf" or (endings == "mixed" and draw(st.booleans())):
            eol = "\r\n"
        last = index == len(bodies) - 1
        parts.append(body + ("" if last and not draw(st.booleans()) else eol))
    bom = draw(st.sampled_from(["", "", "", "\ufeff"]))
    return bom + "".join(parts)


def _outcome(run: Callable[[], EditResult]) -> tuple[str, object]:
    try:
        result = run()
    except EditError as error:
        return "refused", (type(error), error.reason, error.message, error.path, error.line)
    assert isinstance(result, EditResult)
    return "applied", result


@EXAMPLES
@given(cases())
def test_the_one_pass_replace_all_is_the_general_path(case: tuple[str, str, str]) -> None:
    text, old, new = case
    edit = Edit(old, new, replace_all=True)
    batched = _outcome(lambda: apply_edits(text, [edit], path="f.py"))
    general = _outcome(lambda: _apply_planned(Document(text), [edit], "f.py"))
    assert batched == general
    swaps = line_swaps.replace_all(Document(text), [(old, new)], "f.py") if old != new else None
    event("one pass" if swaps is not None else "general path")
    if swaps is not None:
        kind, result = general
        assert kind == "applied" and isinstance(result, EditResult)
        assert (swaps.text, swaps.replaced, swaps.diff) == (
            result.text,
            result.replaced,
            result.diff,
        )
        assert swaps.lines == result.changed == result.regions


@EXAMPLES
@given(multi_cases())
def test_several_one_pass_replace_alls_are_the_general_path(case: tuple[str, list[Edit]]) -> None:
    text, edits = case
    batched = _outcome(lambda: apply_edits(text, edits, path="f.py"))
    general = _outcome(lambda: _apply_planned(Document(text), edits, "f.py"))
    assert batched == general
    pairs = [(edit.old, edit.new) for edit in edits]
    one_pass = all(edit.replace_all and edit.old != edit.new for edit in edits) and (
        line_swaps.replace_all(Document(text), pairs, "f.py") is not None
    )
    event("one pass" if one_pass else "general path")
    if one_pass:
        assert general[0] == "applied"


def test_renames_on_other_lines_are_one_pass_and_on_one_line_merged() -> None:
    text = "foo = 1\nbar = foo\nbaz = 2\n"
    edits = [Edit("foo", "food", True), Edit("baz", "bazaar", True)]
    assert line_swaps.replace_all(Document(text), [("foo", "food"), ("baz", "bazaar")], "f.py")
    result = apply_edits(text, edits, path="f.py")
    assert result.text == "food = 1\nbar = food\nbazaar = 2\n"
    assert result.replaced == 3
    assert result == _apply_planned(Document(text), edits, "f.py")
    same_line = [Edit("foo", "food", True), Edit("bar", "bark", True)]
    assert (
        line_swaps.replace_all(Document(text), [("foo", "food"), ("bar", "bark")], "f.py") is None
    )
    # Left to the general path, which merges edits of separate text on one line.
    merged = apply_edits(text, same_line, path="f.py")
    assert merged.text == "food = 1\nbark = food\nbaz = 2\n"
    assert [(r.start, r.end) for r in merged.regions] == [(1, 1), (2, 2)]


def test_old_inside_new_is_replaced_only_where_new_is_not_yet() -> None:
    text = "x = compute(a)\ny = compute(a) or 0\nz = compute(a)\n"
    doc = Document(text)
    swaps = line_swaps.replace_all(doc, [("compute(a)", "compute(a) or 0")], "f.py")
    assert swaps is not None
    assert swaps.text == "x = compute(a) or 0\ny = compute(a) or 0\nz = compute(a) or 0\n"
    assert swaps.replaced == 2
    assert [(r.start, r.end) for r in swaps.lines] == [(1, 1), (3, 3)]
    assert swaps.diff == (
        "--- f.py\n+++ f.py\n@@ -1,3 +1,3 @@\n"
        "-x = compute(a)\n+x = compute(a) or 0\n"
        " y = compute(a) or 0\n"
        "-z = compute(a)\n+z = compute(a) or 0\n"
    )
    result = apply_edit(text, "compute(a)", "compute(a) or 0", replace_all=True, path="f.py")
    assert result == _apply_planned(doc, [Edit("compute(a)", "compute(a) or 0", True)], "f.py")


def test_a_file_of_crlf_lines_keeps_them() -> None:
    swaps = line_swaps.replace_all(Document("\ufeffa = 1\r\nb = 1"), [("1", "2")], "f.py")
    assert swaps is not None
    assert swaps.text == "\ufeffa = 2\r\nb = 2"
    assert swaps.diff == "--- f.py\n+++ f.py\n@@ -1,2 +1,2 @@\n-a = 1\n-b = 1\n+a = 2\n+b = 2\n"


def test_what_the_general_path_decides_is_left_to_it() -> None:
    mixed = Document("a = 1\r\nb = 1\n")
    assert line_swaps.replace_all(mixed, [("1", "2")], "f.py") is None  # each line's ending
    lone = Document("a = 1\rb = 1\n")
    assert line_swaps.replace_all(lone, [("1", "2")], "f.py") is None  # a lone CR
    plain = Document("a = 1\nb = 1\n")
    assert line_swaps.replace_all(plain, [("1", "")], "f.py") is None  # lines may go
    assert line_swaps.replace_all(plain, [("= 1\n", "= 2\n")], "f.py") is None  # whole lines
    assert line_swaps.replace_all(plain, [("3", "4")], "f.py") is None  # nowhere: a hint
    # New holds old at many places: the general path pairs places with copies in one pass.
    assert line_swaps.replace_all(plain, [("1", "1, 1, 1, 1, 1")], "f.py") is None
    assert line_swaps.replace_all(plain, [("1", "1, 1, 1, 1")], "f.py") is not None
    done = Document("a = 1 or 0\n")
    assert line_swaps.replace_all(done, [("1", "1 or 0")], "f.py") is None  # already applied
