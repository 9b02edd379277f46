"""Markup a model wraps around its text, and bare ``...`` lines that are text.

Markdown fences and unified-diff prefixes around old and new are dropped
only when the text with them is not in the file and without them is;
unified-diff file headers in a patch's update are dropped when they name
its file. A bare ``...`` that is the file's own text is no elision.
"""

from __future__ import annotations

import pytest

from editing import Reason, apply_edit
from editing.elision import unpaired
from editing.errors import PatchParseError
from editing.patch import apply_patch, parse_patch
from editing.patch.parser import PatchStream
from tests.editing.support import refusal

PY = "def area(r):\n    return 3.14 * r * r\n\n\nprint(area(2))\n"

APPLIED = {
    "fenced old and new": (
        PY,
        "```python\ndef area(r):\n    return 3.14 * r * r\n```",
        "```python\ndef area(r):\n    return math.pi * r * r\n```",
        PY.replace("3.14", "math.pi"),
    ),
    "fenced with a final newline and no language": (
        PY,
        "```\nprint(area(2))\n```\n",
        "```\nprint(area(3))\n```\n",
        PY.replace("area(2)", "area(3)"),
    ),
    "a Markdown file's fences are its text": (
        "# Use\n\n```sh\nmake\n```\n",
        "```sh\nmake\n```",
        "```sh\nmake install\n```",
        "# Use\n\n```sh\nmake install\n```\n",
    ),
    "diff prefixes with context": (
        PY,
        " def area(r):\n-    return 3.14 * r * r\n",
        " def area(r):\n+    return math.pi * r * r\n",
        PY.replace("3.14", "math.pi"),
    ),
    "diff prefixes without context, an empty context line": (
        PY,
        "-    return 3.14 * r * r\n\n\n print(area(2))",
        "+    return math.pi * r * r\n\n\n print(area(2))",
        PY.replace("3.14", "math.pi"),
    ),
    "a YAML list item is its text": (
        "steps:\n- build\n- test\n",
        "- test\n",
        "- test\n- deploy\n",
        "steps:\n- build\n- test\n- deploy\n",
    ),
    "a patch file's lines are its text": (
        "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n",
        "-old\n+new\n",
        "-old\n+newer\n",
        "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+newer\n",
    ),
    "doctest lines kept": (
        '    """\n    >>> for i in range(2):\n    ...     print(i)\n    ...\n    0\n    1\n    """\n',
        "    >>> for i in range(2):\n    ...     print(i)\n    ...\n    0\n    1\n",
        "    >>> for i in range(3):\n    ...     print(i)\n    ...\n    0\n    1\n    2\n",
        '    """\n    >>> for i in range(3):\n    ...     print(i)\n    ...\n    0\n    1\n    2\n'
        '    """\n',
    ),
    "a doctest block added after a prompt": (
        '    """\n    >>> f(1)\n    1\n    """\n',
        "    >>> f(1)\n    1\n",
        "    >>> f(1)\n    1\n    >>> with g() as h:\n    ...     h.run()\n    ...\n    2\n",
        '    """\n    >>> f(1)\n    1\n    >>> with g() as h:\n    ...     h.run()\n    ...\n    2\n'
        '    """\n',
    ),
}


@pytest.mark.parametrize(("text", "old", "new", "expected"), APPLIED.values(), ids=APPLIED.keys())
def test_applied(text, old, new, expected):
    assert apply_edit(text, old, new).text == expected


REFUSED = {
    "fences differ between old and new": (
        PY,
        "```python\nprint(area(2))\n```",
        "```py\nprint(area(3))\n```",
        Reason.NOT_FOUND,
    ),
    "only old fenced": (PY, "```python\nprint(area(2))\n```", "print(area(3))", Reason.NOT_FOUND),
    "fenced old with a placeholder in new": (
        PY,
        "```python\ndef area(r):\n    return 3.14 * r * r\n```",
        "```python\ndef area(r):\n    # ... existing code ...\n```",
        Reason.PLACEHOLDER,
    ),
    "diff prefixes whose stripped old is twice in the file": (
        "x = 1\ny = 2\nx = 1\n",
        "-x = 1\n",
        "+x = 3\n",
        Reason.NOT_FOUND,
    ),
    "diff prefixes whose context differs": (
        PY,
        " def area(r):\n-    return 3.14 * r * r\n",
        " def area(radius):\n+    return 3.14 * radius * radius\n",
        Reason.NOT_FOUND,
    ),
    "stripped old only inside a patch file's lines": (
        "-old\n+new\n",
        "-new\n",
        "+newer\n",
        Reason.NOT_FOUND,
    ),
    "a content ... of old is no twin for an elision comment": (
        '    """\n    >>> for i in range(2):\n    ...     print(i)\n    ...\n    0\n    """\n',
        "    >>> for i in range(2):\n    ...     print(i)\n    ...\n    0\n",
        "    >>> for i in range(2):\n    ...     print(i)\n    # ... existing code\n",
        Reason.PLACEHOLDER,
    ),
    "a new bare ... at the top level": (
        "x = 1\ny = 2\n",
        "x = 1\ny = 2\n",
        "x = 1\n...\n",
        Reason.PLACEHOLDER,
    ),
}


@pytest.mark.parametrize(("text", "old", "new", "reason"), REFUSED.values(), ids=REFUSED.keys())
def test_refused(text, old, new, reason):
    assert refusal(apply_edit, text, old, new).reason == reason


def test_content_dots_pair_only_in_place():
    old = "a\n...\nb\n"
    assert unpaired(old, "a2\n...\nb\n", dots_are_content=True) == []
    assert unpaired(old, "a\n# ... rest\n", dots_are_content=True) == ["# ... rest"]
    assert unpaired(old, "a\n# ... rest\n") == []  # an elision of old's, as its twin


def _patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"]) + "\n"


FILES = {"src/app.py": "import os\n\n\ndef main():\n    return 1\n"}


def _read(path: str) -> str | None:
    return FILES.get(path)


@pytest.mark.parametrize(
    "header",
    [
        ["--- a/src/app.py", "+++ b/src/app.py"],
        ["--- src/app.py\t2024-05-01 10:00:00", "+++ src/app.py\t2024-05-01 10:01:00"],
        ["--- a/src/app.py", "+++ b/src/app.py", "@@ -4,2 +4,2 @@"],
    ],
)
def test_diff_headers_naming_the_file_are_dropped(header):
    text = _patch(
        "*** Update File: src/app.py", *header, " def main():", "-    return 1", "+    return 2"
    )
    assert apply_patch(text, _read).changes[0].after == FILES["src/app.py"].replace("1\n", "2\n")


def test_diff_headers_are_dropped_in_any_split_of_the_stream():
    text = _patch(
        "*** Update File: src/app.py",
        "--- a/src/app.py",
        "+++ b/src/app.py",
        "-    return 1",
        "+    return 2",
    )
    whole = parse_patch(text)
    for cut in range(len(text)):
        stream = PatchStream()
        stream.push(text[:cut])
        stream.push(text[cut:])
        assert stream.finish() == whole


def test_diff_headers_naming_another_file_are_a_parse_error():
    text = _patch(
        "*** Update File: src/app.py",
        "--- a/src/other.py",
        "+++ b/src/other.py",
        "-    return 1",
        "+    return 2",
    )
    with pytest.raises(PatchParseError) as caught:
        parse_patch(text)
    assert "src/other.py" in caught.value.message and "src/app.py" in caught.value.message


def test_a_removed_line_starting_with_two_dashes_is_no_header():
    files = {"q.sql": "-- old note\nSELECT 1;\n"}
    text = _patch("*** Update File: q.sql", "--- old note", "+-- new note", " SELECT 1;")
    assert apply_patch(text, files.get).changes[0].after == "-- new note\nSELECT 1;\n"


def test_a_markdown_rule_as_context_is_no_header():
    files = {"doc.md": "# T\n\n---\n\ntext\n"}
    text = _patch("*** Update File: doc.md", " ---", " ", "-text", "+more text")
    assert apply_patch(text, files.get).changes[0].after == "# T\n\n---\n\nmore text\n"
