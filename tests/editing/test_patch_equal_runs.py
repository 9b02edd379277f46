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
        # An added line takes the ending of the line it replaces, not of a twin's.
        ("s\n\r\n\r\n \ne\n", "@@\n s\n-\n \n+c()\n- \n e\n", "s\n\r\nc()\ne\n"),
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


def test_trailing_blanks_the_model_adds_come_off_its_new_lines() -> None:
    # The model pads every line; the blank lines are all alike, so nothing moves.
    text = "\ndef total(t):\n\n\n\nreturn t + 0\n\n"
    body = "+return t + 0  \n+log('added')  \n \n-\n-return t + 0  \n-\n"
    assert patched(text, body) == "\ndef total(t):\n\nreturn t + 0\nlog('added')\n\n"


def test_padded_lines_around_a_moved_blank_lose_their_padding_too() -> None:
    # Blank lines that differ (a line of spaces): cut by position, padding still undone.
    text = "s = 1\n\n  \ne = 2\n"
    body = "@@\n s = 1  \n-\n \n+t = 3  \n e = 2  \n"
    assert patched(text, body) == "s = 1\n  \nt = 3\ne = 2\n"


@pytest.mark.parametrize(
    ("text", "body", "after"),
    [
        # The last line (no final newline) removed: the line before it ends the file.
        (
            "def total(t):\ndef total(t):",
            "+def total(t): # edited\n def total(t):\n-def total(t):\n",
            "def total(t): # edited\ndef total(t):",
        ),
        ("a\r\n\r\n  \r\nb", "@@\n a\n-\n \n-b\n", "a\r\n  "),
        # The empty line left last is a line without a newline.
        ("a\n  \n\nb", "@@\n a\n-\n \n-b\n", "a\n"),
        # The last line replaced: the new one ends without a newline too.
        ("a\r\n  \r\n\r\nb", "@@\n a\n-\n \n-b\n+c\n", "a\r\n\r\nc"),
    ],
)
def test_a_file_without_a_final_newline_stays_without_one(text: str, body: str, after: str) -> None:
    assert patched(text, body) == after


@pytest.mark.parametrize(
    ("text", "body", "after"),
    [
        # A first run of added lines that repeats the context line after it:
        # the context line keeps its trailing blanks, the added twin is new.
        (
            "def f():\n    x = 1  \n    z = 3\n",
            "@@ def f():\n+    x = 1\n+    y = 2\n     x = 1\n-    z = 3\n+    z = 4\n",
            "def f():\n    x = 1\n    y = 2\n    x = 1  \n    z = 4\n",
        ),
        # Found only by folding punctuation: the context line keeps its bytes.
        (
            "a = “x”\nb = 1  \nc = 2\n",
            '@@\n a = "x"\n+b = 1\n+b = 0\n b = 1\n-c = 2\n+c = 3\n',
            "a = “x”\nb = 1\nb = 0\nb = 1  \nc = 3\n",
        ),
    ],
)
def test_lines_are_paired_as_the_markers_pair_them(text: str, body: str, after: str) -> None:
    assert patched(text, body) == after
