"""A one-line ``replace_all`` written in one pass gives the general path's result.

``apply_edits`` writes an exact ``replace_all`` of one line of text by another
in one pass (``editing.line_swaps``); the general path plans, builds and
reports each place. On generated files full of old, new, copies of new,
overlapping and neighbouring places, CRLF, lone CRs, a BOM, no final
newline, the two must agree on everything: the text, the count, the level,
the notes, the changed lines, the regions, the diff, or the refusal.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import hypothesis.strategies as st
from hypothesis import event, given, settings

from editing import EditError, apply_edit, line_swaps
from editing.document import Document
from editing.edit import Edit, EditResult, _apply_planned, apply_edits

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
    tokens = [old, new, new, old + old, "a", "b", " ", "\t", "aa", "x", "\u201ca\u201d", "e\u0301"]
    tokens += draw(st.sampled_from([[]] * 7 + [["\r"]]))  # a lone CR, now and then
    lines = []
    for _ in range(draw(st.integers(0, 14))):
        indent = draw(st.sampled_from(["", "", "  ", "\t", "    "]))
        body = "".join(draw(st.lists(st.sampled_from(tokens), max_size=4)))
        lines.append(indent + body)
    endings = draw(st.sampled_from(["lf"] * 8 + ["crlf", "mixed"]))
    parts = []
    for index, line in enumerate(lines):
        eol = "\n"
        if endings == "crlf" or (endings == "mixed" and draw(st.booleans())):
            eol = "\r\n"
        last = index == len(lines) - 1
        parts.append(line + ("" if last and not draw(st.booleans()) else eol))
    bom = draw(st.sampled_from(["", "", "", "\ufeff"]))
    return bom + "".join(parts), old, new


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
    swaps = line_swaps.replace_all(Document(text), old, new, "f.py") if old != new else None
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


def test_old_inside_new_is_replaced_only_where_new_is_not_yet() -> None:
    text = "x = compute(a)\ny = compute(a) or 0\nz = compute(a)\n"
    doc = Document(text)
    swaps = line_swaps.replace_all(doc, "compute(a)", "compute(a) or 0", "f.py")
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
    swaps = line_swaps.replace_all(Document("\ufeffa = 1\r\nb = 1"), "1", "2", "f.py")
    assert swaps is not None
    assert swaps.text == "\ufeffa = 2\r\nb = 2"
    assert swaps.diff == "--- f.py\n+++ f.py\n@@ -1,2 +1,2 @@\n-a = 1\n-b = 1\n+a = 2\n+b = 2\n"


def test_what_the_general_path_decides_is_left_to_it() -> None:
    mixed = Document("a = 1\r\nb = 1\n")
    assert line_swaps.replace_all(mixed, "1", "2", "f.py") is None  # each line's ending
    lone = Document("a = 1\rb = 1\n")
    assert line_swaps.replace_all(lone, "1", "2", "f.py") is None  # a lone CR
    plain = Document("a = 1\nb = 1\n")
    assert line_swaps.replace_all(plain, "1", "", "f.py") is None  # lines may go
    assert line_swaps.replace_all(plain, "= 1\n", "= 2\n", "f.py") is None  # whole lines
    assert line_swaps.replace_all(plain, "3", "4", "f.py") is None  # nowhere: a hint
    done = Document("a = 1 or 0\n")
    assert line_swaps.replace_all(done, "1", "1 or 0", "f.py") is None  # already applied
