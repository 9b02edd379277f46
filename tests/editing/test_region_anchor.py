"""``EditResult.first_region_at``: where the first replaced line starts in the old text.

The staging counts a change's lines from it instead of from the start of the
file, so it must be the start of exactly the line ``regions[0]`` names, in
the file's own text: byte-order mark, CRLF and mixed endings included, on
the general path and the one-pass ``replace_all``.
"""

from __future__ import annotations

import hypothesis.strategies as st
from hypothesis import assume, example, given, settings

from editing import Edit, EditError, apply_edits

WORDS = st.sampled_from(["alpha", "beta", "gamma", "x = 1", "  return x", "", "é😀"])
ENDINGS = st.sampled_from(["\n", "\r\n"])


@st.composite
def files(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.tuples(WORDS, ENDINGS), min_size=1, max_size=12))
    text = "".join(word + ending for word, ending in lines)
    if draw(st.booleans()):
        text = text.rstrip("\r\n")  # no line break at the end
    return ("\ufeff" if draw(st.booleans()) else "") + text


@given(files(), st.data())
@example("\ufeffalpha\r\nbeta\r\n", None)
@settings(max_examples=400, deadline=None)
def test_the_first_region_starts_where_its_line_starts(
    text: str, data: st.DataObject | None
) -> None:
    body = text.removeprefix("\ufeff").replace("\r\n", "\n")
    if data is None:
        old, replace_all = "beta", False
    else:
        start = data.draw(st.integers(0, len(body) - 1)) if body else 0
        end = data.draw(st.integers(start, min(len(body), start + 12)))
        old, replace_all = body[start:end], data.draw(st.booleans())
    assume(old.strip())
    try:
        result = apply_edits(text, [Edit(old, old.upper() + "!", replace_all)], path="f")
    except EditError:
        return  # refused (not unique, no change): nothing to anchor
    assert result.regions and result.first_region_at is not None
    at, line = result.first_region_at, result.regions[0].start - 1
    assert at == 0 or text[at - 1] == "\n"
    assert text.count("\n", 0, at) == line
