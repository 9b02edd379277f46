"""Exact matches: substring semantics, uniqueness, replace_all."""

import pytest

from editing import Level, Reason, apply_edit, apply_edits
from editing.edit import Edit
from editing.errors import EditError

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


def refused(text, old, new, **kwargs) -> Reason:
    with pytest.raises(EditError) as caught:
        apply_edit(text, old, new, **kwargs)
    return caught.value.reason


def test_unique_block_is_replaced_and_the_rest_kept():
    result = apply_edit(PY, "    return text.strip()\n", "    return text.strip().lower()\n")
    assert result.text == PY.replace("text.strip()\n", "text.strip().lower()\n")
    assert result.level == Level.EXACT
    assert result.replaced == 1


def test_fragment_inside_a_line():
    result = apply_edit(PY, "str(value)", "repr(value)")
    assert result.text == PY.replace("str(value)", "repr(value)")


def test_text_found_twice_is_ambiguous():
    assert refused(PY, "        return", "        return 0 or") == Reason.AMBIGUOUS


def test_replace_all_changes_every_match():
    text = "a = Foo()\nb = Foo(Foo)\n"
    result = apply_edit(text, "Foo", "Bar", replace_all=True)
    assert result.text == "a = Bar()\nb = Bar(Bar)\n"
    assert result.replaced == 3


def test_replace_all_leaves_copies_of_new_alone():
    text = "x = FooBar\ny = Foo\n"
    assert apply_edit(text, "Foo", "FooBar", replace_all=True).text == "x = FooBar\ny = FooBar\n"


def test_indented_line_prefers_the_line_at_that_depth():
    text = "def a():\n    return x\n\ndef b():\n    if y:\n        return x\n"
    result = apply_edit(text, "    return x\n", "    return x + 1\n")
    assert result.text == text.replace("    return x\n", "    return x + 1\n", 1)


def test_unindented_line_inside_two_depths_is_ambiguous():
    text = "def a():\n    return x\n\ndef b():\n    if y:\n        return x\n"
    assert refused(text, "return x\n", "return x + 1\n") == Reason.AMBIGUOUS


def test_single_line_fragment_takes_indentation_for_added_lines():
    text = "def f():\n    if ok:\n        run()\n"
    result = apply_edit(text, "run()", "run()\nlog()")
    assert result.text == "def f():\n    if ok:\n        run()\n        log()\n"


def test_deleting_a_lines_text_deletes_the_line():
    text = "a = 1\nb = 2\nc = 3\n"
    assert apply_edit(text, "b = 2", "").text == "a = 1\nc = 3\n"
    assert apply_edit(text, "b = 2\n", "").text == "a = 1\nc = 3\n"


def test_deleting_part_of_a_line_keeps_the_line():
    assert apply_edit("x = f(a, b)\n", ", b", "").text == "x = f(a)\n"


def test_new_without_final_newline_still_ends_the_line():
    text = "a\nb\nc\n"
    assert apply_edit(text, "b\n", "B").text == "a\nB\nc\n"


def test_new_with_extra_final_newline_adds_no_blank_line():
    text = "a\nb\nc\n"
    assert apply_edit(text, "b", "B\n").text == "a\nB\nc\n"


def test_empty_old_writes_an_empty_file():
    assert apply_edit("", "", "print(1)\n").text == "print(1)\n"


def test_multi_edit_applies_all_located_in_the_original():
    edits = [Edit("return None", "return ''"), Edit('return ""', "return ''")]
    result = apply_edits(PY, edits)
    assert result.text == PY.replace("return None", "return ''").replace('return ""', "return ''")
    assert result.replaced == 2


def test_multi_edit_does_not_see_its_own_earlier_edits():
    edits = [Edit("def parse(text):", "def parse(raw):"), Edit("def parse(raw):", "def p(raw):")]
    with pytest.raises(EditError) as caught:
        apply_edits(PY, edits)
    assert caught.value.reason == Reason.NOT_FOUND
    assert caught.value.message.startswith("Edit 2 of 2: ")
    assert caught.value.message.endswith("No edit was applied.")


def test_empty_old_on_a_missing_file_creates_it():
    result = apply_edit(None, "", "x = 1\n", path="new.py")
    assert result.created
    assert result.text == "x = 1\n"
    assert result.diff == "--- new.py\n+++ new.py\n@@ -0,0 +1,1 @@\n+x = 1\n"
