"""What the edit writes: the file's line endings, BOM, final newline and bytes."""

import pytest

from editing import apply_edit

# (file, old, new, expected file)
KEPT = {
    "CRLF file keeps CRLF on new lines": (
        "a\r\nb\r\nc\r\n",
        "b\n",
        "b\nb2\n",
        "a\r\nb\r\nb2\r\nc\r\n",
    ),
    "mixed endings: a CRLF region keeps CRLF": (
        "a\r\nb\r\nc\nd\n",
        "a\nb\n",
        "a\nB\nB2\n",
        "a\r\nB\r\nB2\r\nc\nd\n",
    ),
    "mixed endings: an LF region keeps LF": (
        "a\r\nb\r\nc\nd\n",
        "c\n",
        "C\nC2\n",
        "a\r\nb\r\nC\nC2\nd\n",
    ),
    "CRLF in the request takes the file's LF": ("a\nb\n", "a\r\nb\r\n", "a\r\nB\r\n", "a\nB\n"),
    "BOM is kept": (
        '\ufeff{\n  "a": 1\n}\n',
        '{\n  "a": 1\n',
        '{\n  "a": 2\n',
        '\ufeff{\n  "a": 2\n}\n',
    ),
    "missing final newline stays missing after added lines": (
        "a: 1\nb: []",
        "b: []",
        "b:\n  - x",
        "a: 1\nb:\n  - x",
    ),
    "missing final newline stays missing when old has one": (
        "a: 1\nb: []",
        "b: []\n",
        "b: [x]\n",
        "a: 1\nb: [x]",
    ),
    # Line 1 has trailing blanks and line 3 a curly quote in the file; the model
    # copied both loosely but left them unchanged.
    "context lines keep the file's bytes": (
        "x = 1   \ny = 2\nz = 'it’s'\n",
        "x = 1\ny = 2\nz = 'it's'\n",
        "x = 1\ny = 3\nz = 'it's'\n",
        "x = 1   \ny = 3\nz = 'it’s'\n",
    ),
}


@pytest.mark.parametrize(("text", "old", "new", "expected"), KEPT.values(), ids=KEPT.keys())
def test_the_file_keeps_its_own_terms(text, old, new, expected):
    assert apply_edit(text, old, new).text == expected


def test_report_has_changed_lines_and_a_diff():
    text = "".join(f"line {i}\n" for i in range(1, 21))
    result = apply_edit(text, "line 10\nline 11\n", "line 10\nline ten-one\nline 11b\n")
    assert [(r.start, r.end) for r in result.changed] == [(11, 12)]
    assert result.diff == (
        "--- file\n"
        "+++ file\n"
        "@@ -8,7 +8,8 @@\n"
        " line 8\n"
        " line 9\n"
        " line 10\n"
        "-line 11\n"
        "+line ten-one\n"
        "+line 11b\n"
        " line 12\n"
        " line 13\n"
        " line 14\n"
    )


def test_diff_hunks_of_far_apart_replacements_are_separate():
    text = "".join(f"v{i} = {i}\n" for i in range(40))
    result = apply_edit(text, " = 7\n", " = 70\n")
    assert result.diff.count("@@") == 2
    result = apply_edit(text, "v", "w", replace_all=True)
    assert result.replaced == 40
    assert result.diff.count("@@ -1,40 +1,40 @@") == 1
