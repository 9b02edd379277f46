"""The exact texts the model reads on refusal and success."""

from editing import Edit, apply_edit, apply_edits
from tests.editing.support import refusal

SRC = """\
def total(items, ctx):
    result = 0
    for item in items:
        result += price(item, ctx)
    return result


def count(items):
    result = 0
    for item in items:
        result += 1
    return result
"""


def message(text, old, new) -> str:
    return refusal(apply_edit, text, old, new, path="pkg/sums.py").message


def test_not_found_shows_the_closest_lines_and_what_differs():
    old = "    for item in items:\n        result += price(item)\n"
    assert message(SRC, old, old.replace("price", "cost")) == (
        "Edit not applied to pkg/sums.py: old was not found in the file.\n"
        "The closest text in the file is at lines 3-4:\n"
        "1| def total(items, ctx):\n"
        "2|     result = 0\n"
        "3|     for item in items:\n"
        "4|         result += price(item, ctx)\n"
        "5|     return result\n"
        "6| \n"
        "Where old differs from those lines:\n"
        "  old:          result += price(item)\n"
        "  file:         result += price(item, ctx)  (line 4)\n"
        "Copy old exactly from the file (view it again if it may have changed), then retry."
    )
    assert refusal(apply_edit, SRC, old, old.replace("price", "cost"), path="x").line == 3


def test_not_found_with_nothing_close():
    assert message(SRC, "SELECT * FROM invoices;\n", "SELECT 1;\n") == (
        "Edit not applied to pkg/sums.py: old was not found in the file.\n"
        "Nothing in the file resembles it. View the file to see its current text, "
        "then retry with old copied from it."
    )
    assert (
        refusal(apply_edit, SRC, "SELECT * FROM invoices;\n", "SELECT 1;\n", path="x").line is None
    )


def test_ambiguous_lists_every_place():
    old = "    for item in items:\n"
    assert message(SRC, old, "    for item in list(items):\n") == (
        "Edit not applied to pkg/sums.py: old matches 2 places (lines 3, 10). Add surrounding "
        "lines to old until it matches exactly one place, or set replace_all to change every one."
    )
    assert refusal(apply_edit, SRC, old, "    for item in list(items):\n", path="x").line == 3


def test_already_applied_says_where():
    assert message(
        SRC, "        result += price(item)\n", "        result += price(item, ctx)\n"
    ) == (
        "Edit not applied to pkg/sums.py: new is already in the file at line 4, so this edit "
        "was made before. Nothing to do; view the file if you expected something else."
    )


def test_already_applied_names_the_lines_new_is_on():
    new = "    for item in items:\n        result += 1\n    return result\n"
    assert message(SRC, "        result += 1\n", new) == (
        "Edit not applied to pkg/sums.py: new is already in the file at lines 10-12, so this "
        "edit was made before. Nothing to do; view the file if you expected something else."
    )


def test_placeholder_names_the_line():
    old = "    for item in items:\n        result += 1\n"
    assert message(SRC, old, "    # ... existing code ...\n") == (
        "Edit not applied to pkg/sums.py: new contains '# ... existing code ...', which stands "
        "for code left out, and old has no such line, so applying it would delete that code. "
        "Write the full text in new, or put the same elision line in old too so it stands for "
        "the lines kept unchanged."
    )


def test_disproportionate_elision_names_the_line_and_the_lines_it_stands_for():
    body = "".join(f"    step_{i}()\n" for i in range(120))
    old = "def run():\n    # ... existing code ...\n    return done\n"
    assert message(f"def run():\n{body}    return done\n", old, old.replace("run()", "run(x)")) == (
        "Edit not applied to pkg/sums.py: the elision line '# ... existing code ...' would "
        "stand for 120 lines (lines 2-121), far more than the 2 lines quoted. Quote the lines "
        "you change as separate edits instead of eliding so much."
    )


def test_multi_edit_refusal_names_the_edit():
    edits = [Edit("def count(items):", "def count(items, start=0):"), Edit("nope", "yes")]
    error = refusal(apply_edits, SRC, edits, path="pkg/sums.py")
    assert error.message.startswith(
        "Edit 2 of 2: Edit not applied to pkg/sums.py: old was not found in the file."
    )
    assert error.message.endswith(" No edit was applied.")


def test_success_message_has_the_level_and_the_diff():
    old = "def count(items):\n  result = 0\n"
    result = apply_edit(SRC, old, "def count(items):\n  result = 1\n", path="pkg/sums.py")
    assert result.message == (
        "Edited pkg/sums.py: replaced 1 occurrence (after ignoring indentation; new was "
        "re-indented to match the file).\n"
        "--- pkg/sums.py\n"
        "+++ pkg/sums.py\n"
        "@@ -6,7 +6,7 @@\n"
        " \n"
        " \n"
        " def count(items):\n"
        "-    result = 0\n"
        "+    result = 1\n"
        "     for item in items:\n"
        "         result += 1\n"
        "     return result\n"
    )


def test_ambiguous_on_one_line_names_the_columns():
    assert message("x = f(a) + f(a)\n", "f(a)", "g(a)") == (
        "Edit not applied to pkg/sums.py: old matches 2 places (line 1, columns 5 and 12). "
        "Add surrounding lines to old until it matches exactly one place, "
        "or set replace_all to change every one."
    )


def test_not_found_names_invisible_characters():
    assert message("x\u00a0= 1\ny = 2\n", "x = 1\ny = 3\n", "x = 1\ny = 4\n") == (
        "Edit not applied to pkg/sums.py: old was not found in the file.\n"
        "The closest text in the file is at lines 1-2:\n"
        "1| x\u00a0= 1\n"
        "2| y = 2\n"
        "Where old differs from those lines:\n"
        "  old:  x = 1\n"
        "  file: x\u00a0= 1  (line 1)\n"
        "        in the file's line 1: U+00A0 NO-BREAK SPACE at column 2\n"
        "  old:  y = 3\n"
        "  file: y = 2  (line 2)\n"
        "Copy old exactly from the file (view it again if it may have changed), then retry."
    )


def test_uncertain_typographic_character():
    # The new " b" pairs with the old " b" only by a two-character run.
    text = 'x = 1\nprint("no\u00a0break")\n'
    assert message(text, 'print("no b', "f(a, b)") == (
        "Edit not applied to pkg/sums.py: the file has '\\xa0' (U+00A0 NO-BREAK SPACE) where "
        "old has ' ', and in the line 'f(a, b)reak\")' of new it is unclear whether that "
        "character was kept or written anew. Send old and new with the file's own characters "
        "(view the file to copy them)."
    )
