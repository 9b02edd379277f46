"""Exact matches: substring semantics, uniqueness, replace_all."""

import pytest

from editing import Edit, Level, Reason, apply_edit, apply_edits
from tests.editing.support import refusal

PY = """\
def parse(text):
    if not text:
        return None
    return text.strip()


def render(value):
    if not value:
        return ""
    return str(value)
"""


def test_unique_block_is_replaced_and_the_rest_kept():
    result = apply_edit(PY, "    return text.strip()\n", "    return text.strip().lower()\n")
    assert result.text == PY.replace("text.strip()\n", "text.strip().lower()\n")
    assert result.level == Level.EXACT
    assert result.replaced == 1


TWO_DEPTHS = "def a():\n    return x\n\ndef b():\n    if y:\n        return x\n"

# (file, old, new, expected file): each applies as an exact match.
EXACT = {
    "fragment inside a line": (
        PY,
        "str(value)",
        "repr(value)",
        PY.replace("str(value)", "repr(value)"),
    ),
    "indented line prefers the line at that depth": (
        TWO_DEPTHS,
        "    return x\n",
        "    return x + 1\n",
        TWO_DEPTHS.replace("    return x\n", "    return x + 1\n", 1),
    ),
    "single-line fragment takes indentation for added lines": (
        "def f():\n    if ok:\n        run()\n",
        "run()",
        "run()\nlog()",
        "def f():\n    if ok:\n        run()\n        log()\n",
    ),
    "deleting a line's text deletes the line": (
        "a = 1\nb = 2\nc = 3\n",
        "b = 2",
        "",
        "a = 1\nc = 3\n",
    ),
    "deleting a whole line": ("a = 1\nb = 2\nc = 3\n", "b = 2\n", "", "a = 1\nc = 3\n"),
    "deleting part of a line keeps the line": ("x = f(a, b)\n", ", b", "", "x = f(a)\n"),
    "new without final newline still ends the line": ("a\nb\nc\n", "b\n", "B", "a\nB\nc\n"),
    "new with extra final newline adds no blank line": ("a\nb\nc\n", "b", "B\n", "a\nB\nc\n"),
    "empty old writes an empty file": ("", "", "print(1)\n", "print(1)\n"),
}


@pytest.mark.parametrize(("text", "old", "new", "expected"), EXACT.values(), ids=EXACT.keys())
def test_exact_match_is_replaced(text, old, new, expected):
    result = apply_edit(text, old, new)
    assert result.text == expected
    assert result.level == Level.EXACT


def test_text_found_twice_is_ambiguous():
    assert refusal(apply_edit, PY, "        return", "        return 0 or").reason == (
        Reason.AMBIGUOUS
    )


def test_unindented_line_inside_two_depths_is_ambiguous():
    assert refusal(apply_edit, TWO_DEPTHS, "return x\n", "return x + 1\n").reason == (
        Reason.AMBIGUOUS
    )


def test_replace_all_changes_every_match():
    text = "a = Foo()\nb = Foo(Foo)\n"
    result = apply_edit(text, "Foo", "Bar", replace_all=True)
    assert result.text == "a = Bar()\nb = Bar(Bar)\n"
    assert result.replaced == 3


def test_replace_all_leaves_copies_of_new_alone():
    text = "x = FooBar\ny = Foo\n"
    assert apply_edit(text, "Foo", "FooBar", replace_all=True).text == "x = FooBar\ny = FooBar\n"


def test_multi_edit_applies_all_located_in_the_original():
    edits = [Edit("return None", "return ''"), Edit('return ""', "return ''")]
    result = apply_edits(PY, edits)
    assert result.text == PY.replace("return None", "return ''").replace('return ""', "return ''")
    assert result.replaced == 2


def test_multi_edit_does_not_see_its_own_earlier_edits():
    edits = [Edit("def parse(text):", "def parse(raw):"), Edit("def parse(raw):", "def p(raw):")]
    error = refusal(apply_edits, PY, edits)
    assert error.reason == Reason.NOT_FOUND
    assert error.message.startswith("Edit 2 of 2: ")
    assert error.message.endswith("No edit was applied.")


def test_empty_old_on_a_missing_file_creates_it():
    result = apply_edit(None, "", "x = 1\n", path="new.py")
    assert result.created
    assert result.text == "x = 1\n"
    assert result.diff == "--- new.py\n+++ new.py\n@@ -0,0 +1,1 @@\n+x = 1\n"
