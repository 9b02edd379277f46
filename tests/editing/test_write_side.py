"""What the edit writes: the file's line endings, BOM, final newline and bytes."""

from editing import apply_edit


def test_crlf_file_keeps_crlf_on_new_lines():
    text = "a\r\nb\r\nc\r\n"
    assert apply_edit(text, "b\n", "b\nb2\n").text == "a\r\nb\r\nb2\r\nc\r\n"


def test_mixed_endings_each_region_keeps_its_own():
    text = "a\r\nb\r\nc\nd\n"
    assert apply_edit(text, "a\nb\n", "a\nB\nB2\n").text == "a\r\nB\r\nB2\r\nc\nd\n"
    assert apply_edit(text, "c\n", "C\nC2\n").text == "a\r\nb\r\nC\nC2\nd\n"


def test_crlf_in_the_request_takes_the_files_lf():
    assert apply_edit("a\nb\n", "a\r\nb\r\n", "a\r\nB\r\n").text == "a\nB\n"


def test_bom_is_kept():
    text = '\ufeff{\n  "a": 1\n}\n'
    assert apply_edit(text, '{\n  "a": 1\n', '{\n  "a": 2\n').text == '\ufeff{\n  "a": 2\n}\n'


def test_missing_final_newline_stays_missing():
    text = "a: 1\nb: []"
    assert apply_edit(text, "b: []", "b:\n  - x").text == "a: 1\nb:\n  - x"
    assert apply_edit(text, "b: []\n", "b: [x]\n").text == "a: 1\nb: [x]"


def test_context_lines_keep_the_files_bytes():
    # Line 1 has trailing blanks and line 3 a curly quote in the file; the model
    # copied both loosely but left them unchanged.
    text = "x = 1   \ny = 2\nz = 'it’s'\n"
    old = "x = 1\ny = 2\nz = 'it's'\n"
    new = "x = 1\ny = 3\nz = 'it's'\n"
    assert apply_edit(text, old, new).text == "x = 1   \ny = 3\nz = 'it’s'\n"


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
