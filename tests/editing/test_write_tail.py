"""Whole-file writes cut off after an edit: truncation is judged by the tail.

A content that stops where the original goes on, inside something (a line
cut short, brackets left open, a last line that opens a block, missing
lines that start inside a block), is refused however it changed the lines
before. A rewrite that drops whole trailing constructs on purpose is written.
"""

from __future__ import annotations

import pytest

from editing import EditError, Reason
from editing.write import check_write

PY = (
    "import os\n\n\ndef load(path):\n    with open(path) as f:\n        data = f.read()\n"
    "    return data\n\n\ndef save(path, data):\n    with open(path, 'w') as f:\n"
    "        f.write(data)\n    return len(data)\n\n\ndef main():\n    save('x', load('y'))\n\n\n"
    "if __name__ == '__main__':\n    main()\n"
)
JS = (
    "function a(x) {\n  return x + 1;\n}\n\nfunction b(y) {\n  const z = y * 2;\n"
    "  return z;\n}\n\nmodule.exports = { a, b };\n"
)


def refusal(old: str, new: str) -> EditError:
    with pytest.raises(EditError) as caught:
        check_write(old, new, path="f")
    assert caught.value.reason == Reason.DESTRUCTIVE_WRITE
    return caught.value


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        # An edit at the top, then cut after a line that opens a block.
        (PY, PY.replace("f.read()", "f.read().strip()").split("        f.write")[0], "opens"),
        # An edit at the top, then cut mid-line.
        (PY, PY.replace("import os", "import sys").split("def main")[0] + "def ma", "cut short"),
        # Cut inside a function after a complete line: the missing lines dedent.
        (PY, PY.replace("import os", "import sys").split("    return len")[0], "inside a block"),
        # Braces left open.
        (JS, JS.replace("x + 1", "x + 2").split("  return z;")[0], "brackets"),
        (JS, JS.replace("x + 1", "x + 2").split("}\n\nmodule")[0], "brackets"),
        # The edit is the last line written, and the object it is in is left open.
        (
            "const c = {\n  a: 1,\n  b: 2,\n  c: 3,\n};\nexport default c;\n" + "// note\n" * 4,
            "const c = {\n  a: 1,\n  b: 20,\n",
            "brackets",
        ),
    ],
)
def test_a_content_cut_off_after_an_edit_is_refused(old: str, new: str, why: str) -> None:
    error = refusal(old, new)
    assert why in error.message
    assert "cut off" in error.message and "targeted edits" in error.message


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # The last function deleted on purpose, with an edit above.
        (
            PY.replace("    main()\n", "    main()\n\n\ndef extra():\n    pass\n"),
            PY.replace("import os", "import sys"),
        ),
        # The trailing export dropped on purpose.
        (JS, JS.replace("x + 1", "x + 2").split("\nmodule")[0]),
        # The last lines rewritten shorter, still balanced.
        (JS, JS.replace("  const z = y * 2;\n  return z;\n", "  return y * 2;\n")),
        # A function moved up: its lines are all still there.
        (JS, JS.replace("function b(y)", "function c(y)").split("\nmodule")[0] + "\n"),
    ],
)
def test_a_rewrite_that_ends_on_a_whole_construct_is_written(old: str, new: str) -> None:
    assert check_write(old, new, path="f").text == new


def test_the_refusal_names_where_it_stops_and_where_the_file_goes_on() -> None:
    error = refusal(JS, JS.replace("x + 1", "x + 2").split("  return z;")[0])
    assert "line 6 ('const z = y * 2;')" in error.message
    assert "line 7: 'return z;'" in error.message
    assert error.line == 6
