"""A chunk's lines are placed by their position in the chunk.

Lines that compare equal (blank lines, twin lines) can differ in bytes the
match ignores: a CRLF among LF lines, trailing blanks the model dropped.
When a chunk removes or changes one of them, the one it marked goes, and
the others keep their bytes where they are.
"""

from __future__ import annotations

import pytest

from editing.patch import apply_patch


def patched(text: str, body: str) -> str:
    patch = f"*** Begin Patch\n*** Update File: f\n{body}*** End Patch\n"
    result = apply_patch(patch, {"f": text}.get)
    after = result.files["f"]
    assert after is not None
    return after


@pytest.mark.parametrize(
    ("text", "body", "after"),
    [
        # The first of two blank lines removed; the line of spaces stays.
        ("a\n\n  \nb\n", "@@\n a\n-\n \n b\n", "a\n  \nb\n"),
        ("a\r\n\r\n  \r\nb\r\n", "@@\n a\n-\n \n b\n", "a\r\n  \r\nb\r\n"),
        # The second of two blank lines removed; the first keeps its spaces.
        ("a\n  \n\nb\n", "@@\n a\n \n-\n b\n", "a\n  \nb\n"),
        # Twin code lines with different endings: the marked one goes.
        ("x = 1\r\nx = 1\nend\n", "@@\n-x = 1\n x = 1\n end\n", "x = 1\nend\n"),
        ("x = 1\nx = 1\r\nend\n", "@@\n x = 1\n-x = 1\n end\n", "x = 1\nend\n"),
        # A twin with trailing blanks the model dropped: the marked one changes.
        (
            "if a:\n    go()  \n    go()\n",
            "@@\n if a:\n-    go()\n+    stop()\n     go()\n",
            "if a:\n    stop()\n    go()\n",
        ),
        # A blank line inserted before blank context keeps the context's bytes after it.
        ("a\n  \nb\n", "@@\n a\n+\n \n b\n", "a\n\n  \nb\n"),
        # Two runs of changes around a repeated blank line.
        (
            "a\r\n\r\n\nb\r\n",
            "@@\n-a\n+A\n \n-\n b\n",
            "A\r\n\r\nb\r\n",
        ),
    ],
)
def test_the_line_the_chunk_marks_is_the_one_changed(text: str, body: str, after: str) -> None:
    assert patched(text, body) == after


def test_a_diff_that_agrees_with_the_markers_is_one_replacement() -> None:
    # Nothing repeats: the usual single write, with its usual report.
    text = "def f():\n    return 1\n\nprint(f())\n"
    result = apply_patch(
        "*** Begin Patch\n*** Update File: f\n@@\n def f():\n-    return 1\n+    return 2\n"
        "*** End Patch\n",
        {"f": text}.get,
    )
    assert result.files["f"] == "def f():\n    return 2\n\nprint(f())\n"
    assert result.diff.count("@@ ") == 1
