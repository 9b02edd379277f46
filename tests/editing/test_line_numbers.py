"""Numbered-view prefixes in quoted text."""

from editing.line_numbers import detect, strip_request


def test_styles():
    assert detect("    12→a\n    13→b\n").name == "arrow"
    assert detect("12: a\n13: b\n").name == "colon"
    assert detect("    12\ta\n    13\tb\n").name == "tab"
    assert detect("  12 | a\n  13 | b\n").name == "pipe"


def test_not_a_view():
    assert detect("12: a\n14: b\n") is None
    assert detect("12: a\nb\n") is None
    assert detect("a\nb\n") is None


def test_blank_lines_may_lack_the_prefix():
    assert detect("3→a\n\n5→b\n").name == "arrow"


def test_strip_old_and_new():
    old, new, style = strip_request("7: x = 1\n8:     y\n", "7: x = 2\n8:     y\n")
    assert (old, new, style.name) == ("x = 1\n    y\n", "x = 2\n    y\n", "colon")


def test_new_written_without_prefixes_is_kept():
    assert strip_request("7→x = 1\n", "x = 2\n")[1] == "x = 2\n"


def test_new_with_some_colon_prefixes_is_not_guessed():
    assert strip_request("7: x = 1\n", "7: x = 2\n12: 40\nplain\n") is None
