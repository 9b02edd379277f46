"""A fragment quoted in ASCII for the file's typographic characters, rewritten
as text that shares little with it.

The file's text spliced around a fragment is copied, not written by the
model: it is no evidence that a character next to it was kept. A new text
that keeps no run of the old one (a call written over a comment) is written
as the model wrote it, or refused as unclear, never given the file's
typographic characters.
"""

from __future__ import annotations

import hypothesis.strategies as st
from hypothesis import assume, event, given

from editing import EditError, Reason, apply_edit
from editing.punctuation import fold
from tests.editing.differential import FUZZ
from tests.editing.support import refusal

FILE = "x = 1\n# （全角） total\ny = 2\n"


def test_a_closing_bracket_after_a_split_is_not_the_files():
    # Only the file's " total" joins the model's ")" to the old line's end.
    error = refusal(apply_edit, FILE, "# (全角)", "renamed(\n    arg,\n)")
    assert error.reason == Reason.INVALID_REQUEST
    assert "FULLWIDTH" in error.message


def test_a_fragment_keeping_both_edges_keeps_the_files_characters():
    assert apply_edit(FILE, "(全角)", "(半角)").text == "x = 1\n# （半角） total\ny = 2\n"
    assert apply_edit("x = ‘abc’ + y\n", "'abc'", "'xyz'").text == "x = ‘xyz’ + y\n"


def test_a_line_split_keeping_a_long_run_keeps_the_files_characters():
    text = "s = “a”\n"
    assert apply_edit(text, 's = "a"', 's = "b"\nt = 1').text == "s = “b”\nt = 1\n"


TYPOGRAPHIC = ["（全角）", "“quoted”", "‘single’", "en–dash", "em—dash", "【x】"]
FIRST = ["renamed(", "f(a,", 'call("x",', "if (k) {", "items = ["]
MIDDLE = ["    arg,", "    'q',", '    "s",', "    x - 1,", "    )"]
LAST = [")", ") + 1", '"s")', "}", "]", "'x')"]


@FUZZ
@given(st.data())
def test_new_lines_sharing_no_run_with_old_are_written_as_the_model_wrote_them(
    data: st.DataObject,
) -> None:
    head = data.draw(st.sampled_from(["", "# ", "x = ", "    print(", "msg: "]), label="head")
    piece = data.draw(st.sampled_from(TYPOGRAPHIC), label="piece")
    tail = data.draw(st.sampled_from(["", " total", ")", ";", "  # note"]), label="tail")
    line = head + piece + tail
    text = f"a = 1\n{line}\nb = 2\n"
    start = data.draw(st.integers(0, len(head)), label="start")
    end = data.draw(st.integers(len(head) + len(piece), len(line)), label="end")
    fragment = line[start:end]
    assume(fragment.strip() == fragment and fold(fragment) != fragment)
    old = fold(fragment)
    # Later lines written where they go: at least as deep as the fragment's line.
    indent = line[: len(line) - len(line.lstrip())]
    later = [
        *data.draw(st.lists(st.sampled_from(MIDDLE), max_size=2), label="middle"),
        data.draw(st.sampled_from(LAST), label="last"),
    ]
    new = "\n".join(
        [data.draw(st.sampled_from(FIRST), label="first")] + [indent + t for t in later]
    )
    try:
        result = apply_edit(text, old, new)
    except EditError as error:
        event(f"refused {error.reason}")
        return
    event("applied")
    assert result.text == text.replace(fragment, new, 1), (fragment, new)
