"""Numbered-view prefixes in quoted text."""

from editing.line_numbers import detect, strip_request


def style_of(text: str) -> str:
    style = detect(text)
    assert style is not None, text
    return style.name


def test_styles():
    assert style_of("    12→a\n    13→b\n") == "arrow"
    assert style_of("12: a\n13: b\n") == "colon"
    assert style_of("    12\ta\n    13\tb\n") == "tab"
    assert style_of("  12 | a\n  13 | b\n") == "pipe"


def test_not_a_view():
    assert detect("12: a\n14: b\n") is None
    assert detect("12: a\nb\n") is None
    assert detect("a\nb\n") is None


def test_blank_lines_may_lack_the_prefix():
    assert style_of("3→a\n\n5→b\n") == "arrow"


def test_strip_old_and_new():
    stripped = strip_request("7: x = 1\n8:     y\n", "7: x = 2\n8:     y\n")
    assert stripped is not None
    old, new, style = stripped
    assert (old, new, style.name) == ("x = 1\n    y\n", "x = 2\n    y\n", "colon")


def test_new_written_without_prefixes_is_kept():
    stripped = strip_request("7→x = 1\n", "x = 2\n")
    assert stripped is not None
    assert stripped[1] == "x = 2\n"


def test_new_with_some_colon_prefixes_is_not_guessed():
    assert strip_request("7: x = 1\n", "7: x = 2\n12: 40\nplain\n") is None
