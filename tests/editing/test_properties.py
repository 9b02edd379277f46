"""Property tests for the edit engine (``editing``): what must hold for any input.

1. An exact, unique edit is ``str.replace`` (outside the engine's documented rules).
2. A block quoted with a model's drift (indentation, trailing blanks, curly
   quotes) against a CRLF/BOM file applies as the same change in the file's
   own terms, or is refused; it never applies anything else, and when the
   block is unique even ignoring blanks it is never refused.
3. Any input gives an ``EditResult`` or an ``EditError``; a refused batch
   applies nothing.
4. Exact, unique edits on lines far apart: one batch equals one edit at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

import hypothesis.strategies as st
import pytest
from hypothesis import assume, event, example, given, settings

from editing import Edit, EditError, EditResult, Level, Reason, apply_edit, apply_edits

BOM = "\ufeff"
PROPERTY = settings(max_examples=300, deadline=None)


# -- helpers ------------------------------------------------------------------


def occurs_once(text: str, old: str) -> bool:
    """Whether ``old`` occurs exactly once in ``text``, overlapping occurrences counted."""
    first = text.find(old)
    return first >= 0 and text.find(old, first + 1) == -1


def line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def compact(text: str) -> str:
    """ASCII ``text`` without whitespace, as the already-applied guard compares old and new."""
    return "".join(text.split())


def in_file_terms(view: str, *, crlf: bool, bom: bool) -> str:
    """An LF text as a file that uses CRLF endings and/or starts with a BOM."""
    return (BOM if bom else "") + (view.replace("\n", "\r\n") if crlf else view)


def outcome(text: str, edits: list[Edit]) -> EditResult | EditError:
    """The result of ``apply_edits``, or the refusal it raised."""
    try:
        return apply_edits(text, edits)
    except EditError as error:
        return error


# -- 1. exact unique edit == str.replace -------------------------------------------
#
# Where the engine deliberately differs from ``text.replace(old, new)``, and
# so what the strategies below never generate:
#
# - "\r" and a leading BOM: the file is matched through an LF view without
#   the BOM, and new lines take the file's line endings (property 2 covers
#   this). The alphabet has neither.
# - a final newline: the engine gives new the final newline old has (and
#   drops one old lacks), so old and new both end with "\n" or both do not.
# - an empty new: deleting a line's whole text deletes its newline too, so
#   new is never empty.
# - a blank line: a changed line of new that is only blanks is written as an
#   empty line, so every line of new has a non-blank character.
# - elision lines ("...", "# ... existing code") in new are refused as
#   placeholders; the alphabet has no "." and too few letters for a word.
# - already applied: when a copy of new in the file contains old's match,
#   the edit is refused; inputs where new contains old (whitespace ignored)
#   and new is in the file are left out.
# - indentation: a one-line old that starts in a line's indentation is read
#   as that line quoted at another depth, and new's further lines are
#   re-indented like the file's line; new is then a single line.
# - old with a blank lead that starts inside a line's indentation (not at
#   its start): that is indentation drift, for the later passes; left out.
# - old ending with a newline also matches a last line without one, so
#   uniqueness is counted as if the text had a final newline.

CODE_CHARS = 'abxyz019 \t()=+:;,"'
code_text = st.text(alphabet=CODE_CHARS, max_size=12)
indentation = st.text(alphabet=" \t", max_size=3)
code_lines = st.lists(st.builds(str.__add__, indentation, code_text), min_size=1, max_size=8)
new_line = st.text(alphabet=CODE_CHARS, min_size=1, max_size=10).filter(str.strip)


@st.composite
def unique_slices(draw: st.DrawFn, text: str) -> tuple[int, int]:
    """``(start, end)`` of a slice of ``text`` that occurs once in it.

    The slice is whole lines, a fragment inside one line, or any span.
    """
    kind = draw(st.sampled_from(["lines", "fragment", "span"]))
    if kind == "lines":
        starts = [0, *(i + 1 for i, c in enumerate(text) if c == "\n" and i + 1 < len(text))]
    elif kind == "fragment":
        starts = [i for i, c in enumerate(text) if c != "\n"]
    else:
        starts = list(range(len(text)))
    assume(starts)
    start = draw(st.sampled_from(starts))
    if kind == "lines":
        candidates = {line_end(text, p) for p in range(start, len(text) + 1)}
        candidates |= {end + 1 for end in candidates if end < len(text)}
        ends = sorted(e for e in candidates if e > start)
    elif kind == "fragment":
        ends = list(range(start + 1, line_end(text, start) + 1))
    else:
        ends = list(range(start + 1, len(text) + 1))
    # An old ending with a newline also matches a last line without one.
    searched = text if text.endswith("\n") else text + "\n"
    ends = [end for end in ends if occurs_once(searched, text[start:end])]
    assume(ends)
    return start, draw(st.sampled_from(ends))


@st.composite
def exact_unique_edits(draw: st.DrawFn) -> tuple[str, str, str]:
    """``(text, old, new)``: old occurs once in text; new avoids the documented rules."""
    text = "\n".join(draw(code_lines)) + draw(st.sampled_from(["", "\n"]))
    assume(text)
    start, end = draw(unique_slices(text))
    old = text[start:end]
    starts_in_indentation = not text[line_start(text, start) : start].strip()
    # Inside a line's indentation, an indented old is indentation drift.
    assume(not (old[0] in " \t" and starts_in_indentation and line_start(text, start) < start))
    single = "\n" not in old.rstrip("\n") and starts_in_indentation
    lines = draw(st.lists(new_line, min_size=1, max_size=1 if single else 3))
    new = "\n".join(lines) + ("\n" if old.endswith("\n") else "")
    assume(new != old)
    assume(not (compact(old) in compact(new) and new in text))
    return text, old, new


@pytest.mark.slow
@PROPERTY
@given(exact_unique_edits())
@example(("\t x = 1\n", "\t", "\t\t"))
def test_exact_unique_edit_is_str_replace(case: tuple[str, str, str]) -> None:
    """An old that occurs once, replaced by any new, gives ``text.replace(old, new)``."""
    text, old, new = case
    result = apply_edit(text, old, new)
    assert result.text == text.replace(old, new)
    assert result.level == Level.EXACT
    assert result.replaced == 1


# -- 2. drift round trip ----------------------------------------------------------

NAMES = ["a", "b", "n", "total", "item", "rows"]
TEMPLATES = [
    "{0} = {1}",
    "{0} = {1} + 1",
    "return {0}",
    "if {0}:",
    "for {0} in {1}:",
    'print("{0}")',
    '{0} = "{1}"',
    'log("{0}", {1})',
    "pass",
]
# What the model appends to one line of the block.
APPENDED = [" + 1", ", c", "  # checked", ' or "z"']

python_body = st.builds(
    lambda template, a, b: template.format(a, b),
    st.sampled_from(TEMPLATES),
    st.sampled_from(NAMES),
    st.sampled_from(NAMES),
)
python_line = st.one_of(
    st.just(""),
    st.builds(lambda level, body: "    " * level + body, st.integers(0, 3), python_body),
)
python_files = st.lists(python_line, min_size=2, max_size=16)


@dataclass(frozen=True)
class Drift:
    """How a model's copy of a block differs from the file."""

    shift: int  # spaces added to (or removed from) every non-blank line
    trailing: str  # blanks added at the end of every line
    curly: bool  # straight double quotes written as curly ones

    def apply(self, lines: list[str]) -> list[str]:
        return [self.apply_line(line) for line in lines]

    def apply_line(self, line: str) -> str:
        if line.strip():
            line = line[-self.shift :] if self.shift < 0 else " " * self.shift + line
        return (curl(line) if self.curly else line) + self.trailing


def curl(line: str) -> str:
    """``line`` with its straight double quotes as alternating “ and ”."""
    pieces = line.split('"')
    out = [pieces[0]]
    for index, piece in enumerate(pieces[1:]):
        out += ["“" if index % 2 == 0 else "”", piece]
    return "".join(out)


def indent_width(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


@dataclass(frozen=True)
class DriftCase:
    file: str
    old: str
    new: str
    expected: str
    unique: bool = True  # no other run of lines is the block with blanks ignored


@st.composite
def drift_cases(draw: st.DrawFn) -> DriftCase:
    """A file, a block of it quoted with drift and one line changed, and the expected file."""
    lines = draw(python_files)
    # An empty last line is a line only when a newline ends it.
    final_newline = draw(st.booleans()) or lines[-1] == ""
    view = "\n".join(lines) + ("\n" if final_newline else "")
    count = draw(st.integers(2, min(6, len(lines))))
    first = draw(st.integers(0, len(lines) - count))
    block = lines[first : first + count]
    assume(any(line.strip() for line in block))
    keys = [line.strip() for line in lines]
    windows = [keys[i : i + count] for i in range(len(lines) - count + 1)]
    unique = windows.count(keys[first : first + count]) == 1

    changed = draw(st.sampled_from([i for i, line in enumerate(block) if line.strip()]))
    edited = list(block)
    edited[changed] += draw(st.sampled_from(APPENDED))
    deep_enough = all(indent_width(line) >= 4 for line in block if line.strip())
    drift = Drift(
        shift=draw(st.sampled_from([0, 4, -4] if deep_enough else [0, 4])),
        trailing=draw(st.sampled_from(["", " ", "  "])),
        # A model's curly quotes in old are what tell the engine to undo them.
        curly=any('"' in line for line in block) and draw(st.booleans()),
    )
    at_end = first + count == len(lines)
    # Without a final newline, a last line left empty would not be quoted at all.
    must_end_line = block[-1] == "" and not drift.trailing
    ends_with_newline = (final_newline or not at_end) and (draw(st.booleans()) or must_end_line)
    end = "\n" if ends_with_newline else ""
    old = "\n".join(drift.apply(block)) + end
    new = "\n".join(drift.apply(edited)) + end
    # An old that is another run of lines but for trailing blanks, or that
    # occurs verbatim elsewhere, quotes that other place: the strictest
    # level wins, so the engine rightly applies it there.
    quoted = [line.rstrip() for line in drift.apply(block)]
    assume(
        all(
            [line.rstrip() for line in lines[i : i + count]] != quoted
            for i in range(len(lines) - count + 1)
            if i != first
        )
    )
    block_start = len("\n".join(lines[:first])) + (1 if first else 0)
    block_end = block_start + len("\n".join(block))
    # Old ending with a newline also matches a last line without one: counted
    # as if the text had a final newline (as for the exact edits above).
    searched = view + "\n" if old.endswith("\n") and not view.endswith("\n") else view
    verbatim = searched.find(old)
    inside = block_start <= verbatim and verbatim + len(old) <= block_end + len(end)
    assume(verbatim < 0 or (inside and occurs_once(searched, old)))

    expected_lines = lines[:first] + edited + lines[first + count :]
    expected = "\n".join(expected_lines) + ("\n" if final_newline else "")
    crlf, bom = draw(st.booleans()), draw(st.booleans())
    return DriftCase(
        file=in_file_terms(view, crlf=crlf, bom=bom),
        old=old,
        new=new,
        expected=in_file_terms(expected, crlf=crlf, bom=bom),
        unique=unique,
    )


@pytest.mark.slow
@PROPERTY
@given(drift_cases())
@example(
    DriftCase(file="a = a\n\n", old="a = a \n ", new="a = a + 1 \n ", expected="a = a + 1\n\n")
)
def test_drifted_block_applies_in_the_files_terms(case: DriftCase) -> None:
    """A block quoted with drift applies as the same change in the file's terms, or
    is refused with an EditError.

    Any other applied text is a corrupt result (the worst outcome). When the
    block is unique even ignoring indentation and trailing blanks, the engine
    has exactly one place to apply it, so a refusal is a failure too.
    """
    try:
        result = apply_edit(case.file, case.old, case.new)
    except EditError as error:
        event(f"refused: {error.reason}")
        assert not case.unique, f"unique block refused ({error.reason}): {error}"
        return
    event(f"applied: {result.level.label}")
    assert result.text == case.expected, "corrupt result: applied, but not as expected"


# -- 3. any input: a result or a refusal ----------------------------------------------

ODD_CHARS = [
    "a", "b", "x", "1", " ", " ", "    ", "\t", "\n", "\n", "\r\n", "\r", BOM,
    '"', "'", "\\", "\\n", "\\\"", ".", "...", "…", "#", "//", ":",
    "“", "”", "‘", "’", "—", "–", "--", "\u00a0", "\u200b", "Ａ",
    "1→", "2→", "3: ", "existing code", "(", ")",
]  # fmt: skip
odd_text = st.lists(
    st.one_of(st.sampled_from(ODD_CHARS), st.characters(codec="utf-8")), max_size=20
).map("".join)


@st.composite
def requests(draw: st.DrawFn, text: str) -> Edit:
    """An edit whose old is often a piece of ``text`` (perhaps retouched), else random."""
    if text and draw(st.booleans()):
        start = draw(st.integers(0, len(text) - 1))
        old = text[start : draw(st.integers(start + 1, len(text)))]
        if draw(st.booleans()):
            at = draw(st.integers(0, len(old)))
            old = old[:at] + draw(odd_text) + old[at:]
    else:
        old = draw(odd_text)
    new = draw(st.one_of(odd_text, st.just(old + draw(odd_text))))
    return Edit(old, new, draw(st.booleans()))


@st.composite
def texts_and_edits(draw: st.DrawFn, count: int = 1) -> tuple[str, list[Edit]]:
    """A random text and ``count`` random edits of it."""
    text = draw(odd_text)
    return text, [draw(requests(text)) for _ in range(count)]


@pytest.mark.slow
@PROPERTY
@given(texts_and_edits())
@example(("x = 1  \n", [Edit("  ", "")]))
@example(("abc", [Edit("1→", "x")]))
def test_any_edit_gives_a_result_or_a_refusal(case: tuple[str, list[Edit]]) -> None:
    """``apply_edit`` returns an EditResult or raises an EditError, nothing else.

    An applied edit changes the text and keeps a BOM; a refusal has a stable
    reason and a message. The input text is never altered.
    """
    text, [edit] = case
    before = str(text)
    try:
        result = apply_edit(text, edit.old, edit.new, replace_all=edit.replace_all)
    except EditError as error:
        assert error.reason in set(Reason)
        assert str(error)
    else:
        assert isinstance(result, EditResult)
        assert result.text != text
        assert result.replaced >= 1
        assert result.text.startswith(BOM) or not text.startswith(BOM)
        if "\r" not in text + edit.old + edit.new and "\\" not in edit.new:
            assert "\r" not in result.text
    assert text == before


@pytest.mark.slow
@PROPERTY
@given(st.integers(2, 3).flatmap(texts_and_edits))
@example(("abc\n", [Edit("abc", "abd"), Edit("1→", "x")]))
def test_a_batch_is_all_or_nothing(case: tuple[str, list[Edit]]) -> None:
    """``apply_edits`` returns an EditResult or raises an EditError; it refuses the
    whole batch when any of its edits alone is refused (other than for no change)."""
    text, edits = case
    before = str(text)
    batch = outcome(text, edits)
    assert isinstance(batch, EditResult | EditError)
    singles = [outcome(text, [edit]) for edit in edits]
    refused_alone = [
        s for s in singles if isinstance(s, EditError) and s.reason != Reason.NO_CHANGE
    ]
    if refused_alone:
        assert isinstance(batch, EditError)
    if isinstance(batch, EditResult):
        assert batch.text != text
    assert text == before


# -- 4. a batch of far-apart exact edits == one at a time -----------------------------

# Every line of the file starts with its own name, so any run of whole lines
# is unique. New text is upper-case words, and every old has a lower-case
# letter or a digit, so the first edit cannot make a second copy of the
# second edit's old.
numbered_lines = st.lists(code_text, min_size=4, max_size=14).map(
    lambda bodies: [f"v{i}={body}" for i, body in enumerate(bodies)]
)
upper_line = st.text(alphabet="ABXYZ ", min_size=1, max_size=8).map(str.strip).filter(bool)


@st.composite
def spaced_edits(draw: st.DrawFn) -> tuple[str, list[Edit]]:
    """A file and 2 exact unique edits on line ranges with a line between them."""
    lines = draw(numbered_lines)
    text = "\n".join(lines) + draw(st.sampled_from(["", "\n"]))
    # Two non-empty line ranges [a, b) and [c, d) with at least one line between.
    a = draw(st.integers(0, len(lines) - 4))
    b = draw(st.integers(a + 1, len(lines) - 3))
    c = draw(st.integers(b + 1, len(lines) - 1))
    d = draw(st.integers(c + 1, len(lines)))
    edits = []
    for first, stop in ((a, b), (c, d)):
        if draw(st.booleans()) or stop - first > 1:
            old = "\n".join(lines[first:stop])
            if stop < len(lines) or text.endswith("\n"):
                old += draw(st.sampled_from(["", "\n"]))
            body = draw(st.lists(upper_line, min_size=1, max_size=3))
        else:  # a fragment of one line, from inside its name
            line = lines[first]
            start = draw(st.integers(0, line.index("=") - 1))
            old = line[start : draw(st.integers(line.index("="), len(line)))]
            body = [draw(upper_line)]
        new = "\n".join(body) + ("\n" if old.endswith("\n") else "")
        assume(occurs_once(text, old))
        edits.append(Edit(old, new))
    return text, edits


@pytest.mark.slow
@PROPERTY
@given(spaced_edits())
def test_batch_equals_edits_one_at_a_time(case: tuple[str, list[Edit]]) -> None:
    """Applying far-apart exact edits together equals applying them in sequence."""
    text, edits = case
    sequential = text
    for edit in edits:
        sequential = apply_edit(sequential, edit.old, edit.new).text
    assert apply_edits(text, edits).text == sequential
