"""Guards: requests that are unique but wrong, and requests that are malformed."""

import pytest

from editing import Edit, Reason, apply_edit, apply_edits
from tests.editing.support import refusal

SRC = """\
def month_from_name(name):
    month = MONTHS.index(name.lower()) + 1
    return month


def total(items):
    result = 0
    for item in items:
        result += item.price
    log.debug("total %s", result)
    return result
"""


def reason(text, old, new) -> Reason:
    return refusal(apply_edit, text, old, new).reason


# -- already applied -------------------------------------------------------


def test_old_as_prefix_of_the_already_edited_line():
    old = "month = MONTHS.index(name.lower())"
    assert reason(SRC, old, old + " + 1") == Reason.ALREADY_APPLIED


def test_old_gone_and_new_present():
    assert reason(SRC, "    result = 1\n", "    result = 0\n") == Reason.ALREADY_APPLIED


def test_new_present_with_indentation_drift():
    assert reason(SRC, "result = 1\nfor item in items:\n", "result = 0\nfor item in items:\n") == (
        Reason.ALREADY_APPLIED
    )


def test_new_that_adds_nothing_is_not_taken_as_proof():
    # new only repeats a line old has: finding it proves nothing.
    assert reason(SRC, "    result = 5\n    return result\n", "    return result\n") == (
        Reason.NOT_FOUND
    )


# -- placeholders and elision ----------------------------------------------


@pytest.mark.parametrize(
    "marker",
    [
        "    # ... existing code ...",
        "    # ... rest of the function unchanged",
        "    // ...",
        "    /* ... */",
        "    # (rest of the loop unchanged)",
        "    ...",
    ],
)
def test_elision_line_in_new_only_is_refused(marker):
    old = "    for item in items:\n        result += item.price\n"
    new = f"    for item in items:\n{marker}\n"
    assert reason(SRC, old, new) == Reason.PLACEHOLDER


def test_python_stub_body_is_code():
    text = "class P(Protocol):\n    def a(self) -> int:\n        return 1\n"
    old = "    def a(self) -> int:\n        return 1\n"
    new = "    def a(self) -> int:\n        ...\n"
    assert (
        apply_edit(text, old, new).text
        == "class P(Protocol):\n    def a(self) -> int:\n        ...\n"
    )


def test_comment_with_an_ellipsis_mid_sentence_is_not_a_placeholder():
    old = "    return result\n"
    new = "    # wait for ... then retry\n    return result\n"
    assert "wait for" in apply_edit(SRC, old, new).text


def test_paired_elision_keeps_the_elided_lines():
    old = "def total(items):\n    # ... existing code ...\n    return result\n"
    new = "def total(items, start=0):\n    # ... existing code ...\n    return result + start\n"
    result = apply_edit(SRC, old, new)
    assert result.text == SRC.replace("def total(items):", "def total(items, start=0):").replace(
        "    return result\n", "    return result + start\n"
    )


def test_paired_bare_dots_keep_the_elided_lines():
    old = 'def total(items):\n    ...\n    log.debug("total %s", result)\n'
    new = 'def total(items):\n    ...\n    log.info("total %s", result)\n'
    assert apply_edit(SRC, old, new).text == SRC.replace("log.debug", "log.info")


def test_elision_does_not_reach_past_the_block():
    # The nearest "return value" after a() is in b(): outside the block "# ..." sits in.
    text = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    return value\n"
    old = "def a():\n    # ...\n    return value\n"
    new = "def a():\n    # ...\n    return value + 1\n"
    assert reason(text, old, new) == Reason.NOT_FOUND
    inside = "def a():\n    # ...\n    return x\n"
    assert apply_edit(text, inside, inside.replace("x\n", "x + 1\n")).text == text.replace(
        "return x\n", "return x + 1\n"
    )


def test_elided_part_found_twice_in_the_block_is_ambiguous():
    text = "def a(v):\n    for w in v:\n        yield w\n    return v\n    v = 2\n    return v\n"
    old = "def a(v):\n    # ...\n    return v\n"
    assert reason(text, old, old.replace("def a(v)", "def a(v=0)")) == Reason.AMBIGUOUS


def test_elision_line_dropped_from_new_is_refused():
    old = "def total(items):\n    # ...\n    return result\n"
    assert reason(SRC, old, "def total(items):\n    return 0\n") == Reason.INVALID_REQUEST


def test_elided_span_far_longer_than_the_quote_is_disproportionate():
    body = "".join(f"    step_{i}()\n" for i in range(120))
    text = f"def run():\n{body}    return done\n"
    old = "def run():\n    # ...\n    return done\n"
    new = "def run(fast):\n    # ...\n    return done\n"
    assert reason(text, old, new) == Reason.DISPROPORTIONATE


def test_elision_line_the_file_really_has_matches_literally():
    text = "def f():\n    # ...\n    return 1\n"
    assert apply_edit(text, "    # ...\n    return 1\n", "    # ...\n    return 2\n").text == (
        "def f():\n    # ...\n    return 2\n"
    )


# -- malformed or empty requests --------------------------------------------


def test_empty_old_on_an_existing_file():
    assert reason(SRC, "", "x = 1\n") == Reason.INVALID_REQUEST


def test_identical_old_and_new():
    assert reason(SRC, "    return result\n", "    return result\n") == Reason.NO_CHANGE


def test_edit_of_a_missing_file():
    assert reason(None, "a", "b") == Reason.NOT_FOUND


def test_multi_edit_with_overlapping_edits():
    edits = [
        Edit(
            "    result = 0\n    for item in items:\n", "    result = 0.0\n    for item in items:\n"
        ),
        Edit("    for item in items:\n", "    for item in list(items):\n"),
    ]
    assert refusal(apply_edits, SRC, edits).reason == Reason.INVALID_REQUEST


def test_multi_edit_is_all_or_nothing():
    edits = [Edit("result = 0", "result = 0.0"), Edit("does_not_exist()", "x()")]
    assert refusal(apply_edits, SRC, edits).reason == Reason.NOT_FOUND


def test_multi_edit_ambiguous_second_edit_refuses_the_whole_request():
    edits = [Edit("def total(items):", "def total(items, start):"), Edit("result", "acc")]
    assert refusal(apply_edits, SRC, edits).reason == Reason.AMBIGUOUS


def test_no_edits_is_invalid():
    assert refusal(apply_edits, SRC, []).reason == Reason.INVALID_REQUEST
