"""The tolerance ladder: each drift a model makes when copying text, and its undoing."""

import pytest

from editing import Level, Reason, apply_edit
from editing.errors import EditError

METHOD = """\
class Account:
    def withdraw(self, amount):
        if amount > self.balance:
            raise ValueError("insufficient funds")
        self.balance -= amount
        return self.balance
"""


def applied(text, old, new, **kwargs):
    return apply_edit(text, old, new, **kwargs)


# -- trailing whitespace ---------------------------------------------------


def test_trailing_blanks_the_model_dropped_are_tolerated():
    text = "a = 1  \nb = 2\t\nc = 3\n"
    result = applied(text, "a = 1\nb = 2\n", "a = 1\nb = 20\n")
    assert result.level == Level.TRAILING_WHITESPACE
    # The unchanged line keeps its trailing blanks; the changed one is the model's.
    assert result.text == "a = 1  \nb = 20\nc = 3\n"


def test_trailing_blanks_the_model_added_are_not_written():
    text = "a = 1\nb = 2\nc = 3\n"
    result = applied(text, "a = 1  \nb = 2  \n", "a = 1  \nb = 20  \n")
    assert result.text == "a = 1\nb = 20\nc = 3\n"


def test_blank_line_with_spaces_in_the_file_stays_as_it_is():
    text = "def f():\n    x = 1\n    \n    return x\n"
    result = applied(text, "    x = 1\n\n    return x\n", "    x = 2\n\n    return x\n")
    assert result.text == "def f():\n    x = 2\n    \n    return x\n"


# -- indentation -----------------------------------------------------------


def test_block_quoted_deeper_is_reindented_to_the_file():
    old = '            if amount > self.balance:\n                raise ValueError("insufficient funds")\n'
    new = "            if amount > self.balance:\n                raise InsufficientFunds(amount)\n"
    result = applied(METHOD, old, new)
    assert result.level == Level.INDENTATION
    assert result.text == METHOD.replace(
        'ValueError("insufficient funds")', "InsufficientFunds(amount)"
    )


def test_block_quoted_without_its_common_indentation_gets_it_back():
    old = "self.balance -= amount\nreturn self.balance\n"
    new = "self.balance -= amount\nif self.balance < 0:\n    raise AssertionError\nreturn self.balance\n"
    result = applied(METHOD, old, new)
    assert result.text == METHOD.replace(
        "        return self.balance\n",
        "        if self.balance < 0:\n            raise AssertionError\n        return self.balance\n",
    )


def test_spaces_per_level_become_the_files_tabs():
    text = "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n"
    old = "    if x {\n        return 1\n    }\n"
    new = "    if x {\n        if y {\n            return 2\n        }\n        return 1\n    }\n"
    result = applied(text, old, new)
    assert (
        result.text
        == "func f() {\n\tif x {\n\t\tif y {\n\t\t\treturn 2\n\t\t}\n\t\treturn 1\n\t}\n}\n"
    )


def test_tabs_become_the_files_spaces():
    old = "\tdef withdraw(self, amount):\n\t\tif amount > self.balance:\n"
    new = "\tdef withdraw(self, amount):\n\t\tif amount >= self.balance:\n"
    assert applied(METHOD, old, new).text == METHOD.replace(">", ">=", 1)


def test_two_space_file_and_four_space_model():
    text = "function f() {\n  if (x) {\n    return 1;\n  }\n}\n"
    old = "    if (x) {\n        return 1;\n    }\n"
    new = "    if (x) {\n        log(x);\n        return 1;\n    }\n"
    result = applied(text, old, new)
    assert result.text == "function f() {\n  if (x) {\n    log(x);\n    return 1;\n  }\n}\n"


def test_inconsistent_relative_indentation_is_not_drift():
    # The model flattened a nested line: a real difference in Python.
    old = '        if amount > self.balance:\n        raise ValueError("insufficient funds")\n'
    with pytest.raises(EditError) as caught:
        applied(METHOD, old, old.replace("ValueError", "KeyError"))
    assert caught.value.reason == Reason.NOT_FOUND


def test_new_line_shallower_than_the_removed_offset_is_refused():
    old = "            self.balance -= amount\n"
    new = "            self.balance -= amount\nprint('done')\n"
    with pytest.raises(EditError) as caught:
        applied(METHOD, old, new)
    assert caught.value.reason == Reason.INVALID_REQUEST


def test_same_block_at_two_depths_is_ambiguous_when_quoted_at_a_third():
    text = "def a():\n    x = 1\n    y = 2\n\ndef b():\n    if c:\n        x = 1\n        y = 2\n"
    with pytest.raises(EditError) as caught:
        applied(text, "x = 1\ny = 2\n", "x = 1\ny = 3\n")
    assert caught.value.reason == Reason.AMBIGUOUS


# -- punctuation -----------------------------------------------------------


def test_curly_quotes_in_old_and_new_are_written_as_the_files_ascii():
    old = "raise ValueError(“insufficient funds”)"
    new = "raise ValueError(“not enough money”)"
    result = applied(METHOD, old, new)
    assert result.level == Level.PUNCTUATION
    assert result.text == METHOD.replace("insufficient funds", "not enough money")


def test_curly_quote_the_file_really_has_stays_curly():
    text = 'msg = "You can’t do “that”."\nother = "x"\n'
    old = "msg = “You can’t do “that”.”\nother = “x”\n"
    new = "msg = “You can’t do “that” here.”\nother = “x”\n"
    result = applied(text, old, new)
    assert result.text == 'msg = "You can’t do “that” here."\nother = "x"\n'


def test_em_dash_for_double_hyphen_on_a_context_line_keeps_the_file_bytes():
    text = "case $1 in\n  --dry-run) DRY=1 ;;\n  *) usage ;;\nesac\n"
    old = "  —dry-run) DRY=1 ;;\n  *) usage ;;\n"
    new = "  —dry-run) DRY=1 ;;\n  -h) help ;;\n  *) usage ;;\n"
    result = applied(text, old, new)
    assert result.text == "case $1 in\n  --dry-run) DRY=1 ;;\n  -h) help ;;\n  *) usage ;;\nesac\n"


def test_non_breaking_spaces_become_spaces():
    old = "self.balance\u00a0-=\u00a0amount\n"
    new = "self.balance\u00a0-=\u00a0amount\u00a0+\u00a0fee\n"
    result = applied(METHOD, old, new)
    assert result.text == METHOD.replace("-= amount", "-= amount + fee")


def test_file_with_curly_quotes_found_from_ascii_old():
    text = "title = “Report”\ncount = 1\n"
    result = applied(text, 'title = "Report"\ncount = 1\n', 'title = "Report"\ncount = 2\n')
    assert result.text == "title = “Report”\ncount = 2\n"


def test_changing_only_the_drifted_quotes_is_no_change():
    with pytest.raises(EditError) as caught:
        applied(METHOD, "ValueError(“insufficient funds”)", 'ValueError("insufficient funds")')
    assert caught.value.reason == Reason.NO_CHANGE


# -- escapes ---------------------------------------------------------------


def test_escaped_quotes_with_real_newlines():
    text = '{\n  "a": "x",\n  "b": "y"\n}\n'
    result = applied(text, '  \\"a\\": \\"x\\",\n', '  \\"a\\": \\"z\\",\n')
    assert result.level == Level.ESCAPES
    assert result.text == '{\n  "a": "z",\n  "b": "y"\n}\n'


def test_whole_text_escaped_on_one_line():
    text = 'if x:\n    print("a")\n'
    result = applied(text, 'if x:\\n    print(\\"a\\")', 'if x:\\n    print(\\"b\\")')
    assert result.text == 'if x:\n    print("b")\n'


def test_literal_backslash_n_in_new_survives_quote_unescaping():
    # Only quotes were escaped in old, so new's \\n is the model's real code.
    text = 'msg = "a"\n'
    result = applied(text, 'msg = \\"a\\"\n', 'msg = \\"a\\\\nb\\"\n')
    assert result.text == 'msg = "a\\nb"\n'


def test_backslashes_the_file_really_has_are_matched_exactly_first():
    text = 'echo "not \\"$b\\"" >&2\n'
    result = applied(text, 'echo "not \\"$b\\"" >&2\n', 'echo "no \\"$b\\"" >&2\n')
    assert result.level == Level.EXACT
    assert result.text == 'echo "no \\"$b\\"" >&2\n'


# -- line-number prefixes --------------------------------------------------


@pytest.mark.parametrize(
    "prefixes",
    [
        ["     2→", "     3→"],
        ["2: ", "3: "],
        ["     2\t", "     3\t"],
    ],
    ids=["arrow", "colon", "cat-n"],
)
def test_view_prefixes_are_stripped(prefixes):
    first, second = prefixes
    old = f"{first}    def withdraw(self, amount):\n{second}        if amount > self.balance:\n"
    new = f"{first}    def withdraw(self, amount):\n{second}        if amount >= self.balance:\n"
    result = applied(METHOD, old, new)
    assert result.text == METHOD.replace(">", ">=", 1)
    assert any("line-number" in note for note in result.notes)


def test_prefix_like_text_the_file_really_has_is_not_stripped():
    text = "hours:\n12: 40\n13: 40\n14: 60\n"
    assert applied(text, "12: 40\n13: 40\n", "12: 25\n13: 25\n").text == (
        "hours:\n12: 25\n13: 25\n14: 60\n"
    )


def test_prefixes_with_indentation_drift():
    old = '5: if amount > self.balance:\n6:     raise ValueError("insufficient funds")\n'
    new = "5: if amount > self.balance:\n6:     raise KeyError(amount)\n"
    result = applied(METHOD, old, new)
    assert result.text == METHOD.replace('ValueError("insufficient funds")', "KeyError(amount)")


def test_numbers_that_do_not_count_up_are_not_a_view():
    old = "7: self.balance -= amount\n3: return self.balance\n"
    with pytest.raises(EditError) as caught:
        applied(METHOD, old, "7: self.balance -= 2\n3: return self.balance\n")
    assert caught.value.reason == Reason.NOT_FOUND


# -- stops at the first level that matches -----------------------------------


def test_uniqueness_is_counted_at_the_level_that_matched():
    # Exact text occurs once; a looser level would also find the indented copy.
    text = "x = 1\ny = 2\n\ndef f():\n    x = 1\n    y = 2\n"
    result = applied(text, "x = 1\ny = 2\n", "x = 1\ny = 3\n")
    assert result.text == "x = 1\ny = 3\n\ndef f():\n    x = 1\n    y = 2\n"


def test_single_line_quoted_deeper_takes_its_added_lines_along():
    text = "nodeSelector: {}\ntolerations: []"
    old = "    tolerations: []"
    new = "    tolerations:\n      - key: dedicated\n        effect: NoSchedule"
    result = applied(text, old, new)
    assert (
        result.text == "nodeSelector: {}\ntolerations:\n  - key: dedicated\n    effect: NoSchedule"
    )
