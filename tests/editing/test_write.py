"""Whole-file writes: creation, guarded overwrites."""

from editing import Reason, check_write
from tests.editing.support import refusal

CLASS = "".join(f"    def m{i}(self):\n        return {i}\n\n" for i in range(10))
FILE = f"class C:\n{CLASS}"


def reason(text, content) -> Reason:
    return refusal(check_write, text, content, path="c.py").reason


def test_new_file_is_created_as_given():
    result = check_write(None, "x = 1\n", path="new.py")
    assert result.created
    assert result.text == "x = 1\n"
    assert result.diff.startswith("--- new.py\n+++ new.py\n@@ -0,0 +1 @@\n+x = 1\n")


def test_complete_rewrite_of_a_small_file_is_allowed():
    content = FILE.replace("return 3", "return 30")
    result = check_write(FILE, content, path="c.py")
    assert not result.created
    assert result.text == content


def test_rewrite_keeps_crlf_and_bom():
    result = check_write("\ufeffa\r\nb\r\n", "a\nc\n", path="w.txt")
    assert result.text == "\ufeffa\r\nc\r\n"


def test_identical_content_is_no_change():
    assert reason(FILE, FILE) == Reason.NO_CHANGE


def test_truncated_copy_is_destructive():
    cut = FILE[: FILE.index("    def m7")] + "    def m7(se"
    assert reason(FILE, cut) == Reason.DESTRUCTIVE_WRITE


def test_dropping_a_third_of_the_lines_is_destructive():
    content = "class C:\n" + "".join(
        f"    def m{i}(self):\n        return {i}\n\n" for i in range(6)
    )
    content += "    def extra(self):\n        return -1\n"
    assert reason(FILE, content) == Reason.DESTRUCTIVE_WRITE


def test_placeholder_for_the_rest_of_the_class_is_refused():
    content = (
        "class C:\n    def m0(self):\n        return 0\n\n    # ... (rest of the class unchanged)\n"
    )
    assert reason(FILE, content) == Reason.PLACEHOLDER


def test_elision_like_line_the_file_already_has_is_kept():
    text = "def f():\n    # ...\n    return 1\n"
    assert check_write(text, text.replace("1", "2"), path="f.py").text == text.replace("1", "2")


def test_large_file_is_not_rewritten_whole():
    text = "".join(f"x{i} = {i}\n" for i in range(1500))
    assert reason(text, text.replace("x3 = 3", "x3 = 4")) == Reason.DESTRUCTIVE_WRITE
