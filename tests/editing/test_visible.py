"""The one rule for showing model-chosen text (``editing.visible``), held by properties.

Whatever the text, what is shown holds no character a terminal or an editor
would act on (except the tabs and line breaks a view asks to keep), text
without such characters is shown as it is, and the escapes can be read back
to the exact text: nothing is lost, nothing is made up.
"""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from editing.report import diff_lines
from editing.visible import HIDDEN, escape, hidden_in, is_hidden, visible, visible_lines

HIDDEN_CHARS = st.sampled_from(
    [chr(p) for low, high in HIDDEN for p in {low, high, (low + high) // 2}]
)
TEXT = st.lists(st.one_of(st.characters(), HIDDEN_CHARS), max_size=40).map("".join)
ESCAPE = re.compile(r"\\x([0-9a-f]{2})|\\u([0-9a-f]{4})|\\U([0-9a-f]{8})")


def read_back(shown: str) -> str:
    return ESCAPE.sub(lambda m: chr(int(next(g for g in m.groups() if g), 16)), shown)


def test_the_table_holds_every_control_format_and_separator_character():
    missing = [
        f"U+{p:04X}"
        for p in range(0x110000)
        if unicodedata.category(chr(p)) in ("Cc", "Cf", "Zl", "Zp") and not is_hidden(chr(p))
    ]
    assert missing == []


def test_the_table_holds_the_bidi_overrides_and_isolates():
    for point in [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C]:
        assert is_hidden(chr(point)), f"U+{point:04X}"


def test_ordinary_text_is_not_hidden():
    for text in ["def f():", "naïve 😀 日本語", "a\u00a0b", "é", "~", " "]:
        assert hidden_in(text) is None
        assert visible(text) is text


@pytest.mark.parametrize(
    ("char", "shown"),
    [
        ("\x1b", r"\x1b"),
        ("\r", r"\x0d"),
        ("\x7f", r"\x7f"),
        ("\x85", r"\x85"),
        ("\u202e", r"\u202e"),
        ("\u2066", r"\u2066"),
        ("\ufeff", r"\ufeff"),
        ("\U000e0041", r"\U000e0041"),
    ],
)
def test_escapes(char: str, shown: str):
    assert escape(char) == shown
    assert visible(f"a{char}b") == f"a{shown}b"


@given(TEXT)
def test_nothing_hidden_is_shown(text: str):
    assert hidden_in(visible(text)) is None


@given(TEXT, st.sampled_from(["\t", "\t\n", "\n"]))
def test_only_what_is_kept_is_left(text: str, keep: str):
    shown = visible(text, keep=keep)
    assert all(char in keep for char in shown if is_hidden(char))


@given(TEXT.filter(lambda t: "\\" not in t))
def test_the_escapes_read_back_to_the_text(text: str):
    assert read_back(visible(text)) == text


@given(st.text(st.characters(exclude_categories=("Cc", "Cf", "Zl", "Zp", "Cs"))))
def test_text_without_hidden_characters_is_shown_as_it_is(text: str):
    assert visible(text) == text


@given(TEXT)
def test_a_block_keeps_its_lines_and_tabs_only(text: str):
    shown = visible_lines(text)
    assert all(char in "\t\n" for char in shown if is_hidden(char))
    assert shown.count("\n") == text.replace("\r\n", "\n").count("\n")


@given(TEXT)
def test_diff_lines_break_where_editors_do_and_lose_nothing(text: str):
    lines = diff_lines(text)
    assert "".join(lines) == text
    for line in lines:
        body = line.removesuffix("\n").removesuffix("\r")
        assert "\n" not in body and "\r" not in body
        assert line
    assert all(line.endswith(("\n", "\r")) for line in lines[:-1])


def test_a_line_separator_in_code_is_one_line_of_the_diff():
    assert diff_lines("x = 1\u2028y = 2\n\x0cz\r\nw") == ["x = 1\u2028y = 2\n", "\x0cz\r\n", "w"]
