"""Families of requests that once wrote wrong text or were refused although clear.

Each case is the smallest realistic form of the family; the property tests
(``test_differential.py``) check the rules behind them on random input.
"""

import pytest

from editing import Reason, apply_edit
from editing.patch import apply_patch
from tests.editing.support import refusal

# (file, old, new, expected file)
APPLIED = {
    # 1. The file's typographic characters stay when the model quoted ASCII.
    "curly quotes kept, old with a final newline": (
        "He said “hello”\nend\n",
        'He said "hello"\n',
        'He said "hi"\n',
        "He said “hi”\nend\n",
    ),
    "curly quotes kept, one-line old": (
        "const msg = “Hello World”;\n",
        'const msg = "Hello World";',
        'const msg = "Goodbye";',
        "const msg = “Goodbye”;\n",
    ),
    "single curly quotes kept": (
        "console.log(‘hello’);\n",
        "console.log('hello');",
        "console.log('world');",
        "console.log(‘world’);\n",
    ),
    "fullwidth brackets kept": (
        "你好，世界\n你好（世界）\n",
        "你好,世界\n你好(世界)\n",
        "你好，pi\n你好(pi)\n",
        "你好，pi\n你好（pi）\n",
    ),
    "no-break space kept": (
        "hello\xa0world\n",
        "hello world",
        "hello universe",
        "hello\xa0universe\n",
    ),
    "an em dash the model wrote as two hyphens": (
        "# wait — then retry\nretry()\n",
        "# wait -- then retry\n",
        "# wait -- then retry twice\n",
        "# wait — then retry twice\nretry()\n",
    ),
    "a new ASCII character stays ASCII": (
        "s = “a”\n",
        's = "a"\n',
        's = "a" - 1\n',
        "s = “a” - 1\n",
    ),
    "a composed accent in old for the file's decomposed one": (
        "ＡＢＣ１２３\ncafe\u0301\n",
        "ABC123\ncafé\n",
        "XYZ789\ncoffee\n",
        "XYZ789\ncoffee\n",
    ),
    "a decomposed accent kept, curly quotes kept": (
        'msg = "“cafe\u0301”"\n',
        'msg = ""café""\n',
        'msg = ""café au lait""\n',
        'msg = "“cafe\u0301 au lait”"\n',
    ),
    # 2. A quote at a line start is about whole lines.
    "indented quote only inside a deeper line is indentation drift": (
        "def f():\n    if a:\n        if b:\n            call(x,\n                 y)\n",
        "        call(x,\n             y)",
        "        call(x,\n             z)",
        "def f():\n    if a:\n        if b:\n            call(x,\n                 z)\n",
    ),
    "one indented line only inside a deeper line is re-indented": (
        "if a:\n    if b:\n        return x\n",
        "    return x",
        "    log(x)\n    return x",
        "if a:\n    if b:\n        log(x)\n        return x\n",
    ),
    "an indented one-line old does not match inside a longer name": (
        "def f():\n    total_count += 1\n    if a:\n        if b:\n            count += 1\n",
        "        count += 1",
        "        count += 1\n        total += 1",
        "def f():\n    total_count += 1\n    if a:\n        if b:\n"
        "            count += 1\n            total += 1\n",
    ),
    # 4. Continuation lines of a fragment's new text are the model's own.
    "fragment after the indentation, new lines written as in the file": (
        "def f():\n    foo(a, b)\n",
        "foo(a, b)",
        "foo(\n        a,\n        b,\n    )",
        "def f():\n    foo(\n        a,\n        b,\n    )\n",
    ),
    "fragment mid-line, new lines written as in the file": (
        "def f():\n    x = foo(a, b)\n",
        "foo(a, b)",
        "foo(\n        a,\n        b,\n    )",
        "def f():\n    x = foo(\n        a,\n        b,\n    )\n",
    ),
    "fragment after the indentation, new lines written from column 0": (
        "def f():\n    return x\n",
        "return x",
        "log(x)\nreturn x",
        "def f():\n    log(x)\n    return x\n",
    ),
    # Indentation written with no-break spaces.
    "indentation of old and new written with no-break spaces": (
        "def f():\n    a = 1\n    return a\n",
        "def f():\n\xa0\xa0\xa0\xa0a = 1\n",
        "def f():\n\xa0\xa0\xa0\xa0a = 2\n",
        "def f():\n    a = 2\n    return a\n",
    ),
    "indentation written with figure spaces, new line added": (
        "if x:\n    a = 1\n",
        "if x:\n\u2007\u2007\u2007\u2007a = 1\n",
        "if x:\n\u2007\u2007\u2007\u2007a = 1\n\u2007\u2007\u2007\u2007b = 2\n",
        "if x:\n    a = 1\n    b = 2\n",
    ),
}


# Found by the differential property tests.
APPLIED |= {
    "a letter kept without its accent is the model's letter": (
        "    résumé: 0",
        "re\u0301",
        "renamed",
        "    renamedsumé: 0",
    ),
    "a fragment's trailing blank the file has stays on its line": (
        "def total(total): ",
        "    def total(total): ",
        '    def total(total): \n    log("added")',
        'def total(total): \nlog("added")',
    ),
    "new lines inside an LF line of a mostly CRLF file are LF": (
        "def total(total):\nreturn 0\r\nreturn 1\r\n",
        "de",
        "renamed(\n    arg,\n)",
        "renamed(\n    arg,\n)f total(total):\nreturn 0\r\nreturn 1\r\n",
    ),
    "a line added after a last line without newline takes the ending before it": (
        "\n\n\r\ndef total(total):",
        "def total(total):",
        'def total(total):\nlog("added")',
        '\n\n\r\ndef total(total):\r\nlog("added")',
    ),
}


@pytest.mark.parametrize(("text", "old", "new", "expected"), APPLIED.values(), ids=APPLIED.keys())
def test_applied_in_the_files_terms(text, old, new, expected):
    assert apply_edit(text, old, new).text == expected


REFUSED = {
    # 2. Uniqueness counted at the indentation level: the line is at 4 and at 12.
    "indented quote inside a deeper line while the file has it shallower": (
        "def f():\n    if a:\n        if b:\n            return x\n    return x\n",
        "        return x",
        "        return y",
        Reason.AMBIGUOUS,
    ),
    # 3. A final newline missing from the file's last line does not hide a match.
    "last line without newline counts as a match": ("a\n\na", "a\n", "A\n", Reason.AMBIGUOUS),
}


@pytest.mark.parametrize(("text", "old", "new", "reason"), REFUSED.values(), ids=REFUSED.keys())
def test_refused(text, old, new, reason):
    assert refusal(apply_edit, text, old, new).reason == reason


def patch(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"]) + "\n"


def patched(files: dict[str, str], text: str) -> dict[str, str | None]:
    return apply_patch(text, files.get).files


def test_chunk_with_blank_context_on_a_file_without_final_newline_is_ambiguous():
    # With a final newline the same patch is ambiguous (lines 1 and 3).
    text = patch("*** Update File: a.txt", "@@", " ", "-a", "+A")
    for content in ("a\n\na\n", "a\n\na"):
        error = refusal(apply_patch, text, {"a.txt": content}.get)
        assert error.reason == Reason.AMBIGUOUS, content


def test_an_anchor_that_is_the_first_changed_line():
    files = {"m.py": "import os\n\n\ndef foo(self):\n    pass\n"}
    text = patch(
        "*** Update File: m.py",
        "@@ def foo(self):",
        "-def foo(self):",
        "+def foo(self, x):",
        "     pass",
    )
    assert patched(files, text)["m.py"] == files["m.py"].replace(
        "def foo(self):\n    pass", "def foo(self, x):\n    pass"
    )


def test_an_anchor_that_is_the_first_context_line_starts_the_chunk():
    files = {
        "m.py": "class A:\n    def foo(self):\n        return 1\n\n\ndef bar():\n    return 1\n"
    }
    text = patch(
        "*** Update File: m.py",
        "@@     def foo(self):",
        "     def foo(self):",
        "-        return 1",
        "+        return 2",
    )
    assert patched(files, text)["m.py"] == files["m.py"].replace("return 1", "return 2", 1)


def test_an_anchor_repeated_as_the_first_line_that_also_matches_later_is_ambiguous():
    # At the anchor's line, or after it? Both methods return 1.
    files = {
        "m.py": "class A:\n    def foo(self):\n        return 1\n"
        "class B:\n    def foo(self):\n        return 1\n"
    }
    text = patch(
        "*** Update File: m.py",
        "@@     def foo(self):",
        "     def foo(self):",
        "-        return 1",
        "+        return 2",
    )
    error = refusal(apply_patch, text, files.get)
    assert error.reason == Reason.AMBIGUOUS
    assert "lines 2-3, 5-6" in error.message


@pytest.mark.parametrize(
    "wrapper",
    [("cat <<'EOF'", "EOF"), ("applypatch <<'PATCH'", "PATCH"), ("apply_patch <<-EOF", "EOF")],
)
def test_heredoc_wrappers(wrapper):
    opening, closing = wrapper
    text = f"{opening}\n{patch('*** Add File: n.txt', '+hi')}{closing}\n"
    assert patched({}, text) == {"n.txt": "hi\n"}


def test_a_pure_rename():
    text = patch("*** Update File: old/name.py", "*** Move to: new/name.py")
    files = {"old/name.py": "x = 1\r\n"}
    assert patched(files, text) == {"new/name.py": "x = 1\r\n", "old/name.py": None}


def test_a_pure_rename_onto_an_existing_file_is_refused():
    text = patch("*** Update File: a.py", "*** Move to: b.py")
    error = refusal(apply_patch, text, {"a.py": "a\n", "b.py": "b\n"}.get)
    assert error.reason == Reason.EXISTS


def test_an_update_without_chunks_or_move_is_still_a_parse_error():
    text = patch("*** Update File: a.py")
    assert refusal(apply_patch, text, {"a.py": "a\n"}.get).reason == Reason.PARSE_ERROR


# -- messages ------------------------------------------------------------------


def test_several_matches_on_one_line_are_named_once_with_columns():
    error = refusal(apply_edit, "x = f(a) + f(a) + f(a)\ny = 1\n", "f(a)", "g(a)")
    assert error.reason == Reason.AMBIGUOUS
    assert "(line 1, columns 5, 12 and 19)" in error.message
    assert "1, 1" not in error.message


def test_matches_on_several_lines_with_two_on_one():
    error = refusal(apply_edit, "f(a) + f(a)\ny = 1\nf(a)\n", "f(a)", "g(a)")
    assert "(lines 1 (columns 1 and 8), 3)" in error.message


def test_invisible_characters_are_named_in_a_not_found_diff():
    text = "def greet():\n    print('hello\u200bworld')\n    return 1\n"
    error = refusal(
        apply_edit, text, "    print('hello world')\n    return 1\n", "    print('hi')\n"
    )
    assert error.reason == Reason.NOT_FOUND
    assert "U+200B ZERO WIDTH SPACE" in error.message


def test_repeated_lines_keep_their_endings_in_place():
    # A diff of three equal lines against four could align them shifted and
    # give the last line the ending of the first.
    text = "    def total(total):\n    def total(total):\n    def total(total):\r\n"
    body = patch(
        "*** Update File: f.py",
        "     def total(total):",
        '+log("added")',
        "     def total(total):",
        "     def total(total):",
    )
    assert patched({"f.py": text}, body)["f.py"] == text.replace("):\n", '):\nlog("added")\n', 1)
