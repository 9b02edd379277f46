"""``Document.replace`` writes the new text in one of three ways (one format
with the head read in place, a format of the head and the joined rest, a plain
join); every way must give the text the plain splice gives."""

from __future__ import annotations

import hypothesis.strategies as st
from hypothesis import given, settings

from editing.document import Document

texts = st.text(alphabet="ab\n\r\ufeff\u201c", max_size=80)


def _plain(doc: Document, replacements: list[tuple[int, int, str]]) -> str:
    out, cursor = [], 0
    for start, end, text in sorted(replacements):
        o_start, o_end = doc.original_offset(start), doc.original_offset(end)
        out += [doc.original[cursor:o_start], text]
        cursor = o_end
    return "".join([*out, doc.original[cursor:]])


@st.composite
def replaced(draw: st.DrawFn) -> tuple[Document, list[tuple[int, int, str]]]:
    doc = Document(draw(texts))
    cuts = sorted(draw(st.lists(st.integers(0, len(doc.view)), max_size=60)))
    spans = list(zip(cuts[::2], cuts[1::2], strict=False))
    return doc, [(a, b, draw(st.sampled_from(["", "x", "yy\n"]))) for a, b in spans]


@settings(max_examples=400, deadline=None, database=None)
@given(replaced())
def test_replace_is_the_plain_splice(case: tuple[Document, list[tuple[int, int, str]]]) -> None:
    doc, replacements = case
    assert doc.replace(replacements) == _plain(doc, replacements)


def test_each_way_of_writing_is_taken() -> None:
    text = "line\n" * 200
    doc = Document(text)
    few = [(990, 994, "LINE")]
    late = [(900 + 5 * i, 904 + 5 * i, "L") for i in range(20)]
    early = [(5 * i, 5 * i + 4, "L") for i in range(20)]
    for replacements in (few, late, early, []):
        assert doc.replace(replacements) == _plain(doc, replacements)
