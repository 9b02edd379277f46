"""Which lines stand for omitted code."""

import pytest

from editing.elision import is_marker, unpaired


@pytest.mark.parametrize(
    "line",
    [
        "# ... existing code ...",
        "    // ...",
        "// ... rest of the function unchanged",
        "# ... (rest of the class unchanged)",
        "/* ... */",
        "<!-- ... -->",
        "...",
        "…",
        "# rest of the code unchanged",
        "// existing code here",
        "-- ...",
        "# ... more ...",
    ],
)
def test_elision_lines(line):
    assert is_marker(line)


@pytest.mark.parametrize(
    "line",
    [
        "# wait for ... then retry",
        "x = ...",
        "return ...",
        'print("...")',
        "# Example: foo(...)",
        "# the rest of the function handles errors",
        "# Copyright ...",
        "",
    ],
)
def test_code_and_ordinary_comments(line):
    assert not is_marker(line)


def test_stub_body_in_new_is_not_unpaired():
    assert unpaired("def f(self): pass\n", "def f(self):\n    ...\n") == []


def test_bare_dots_at_the_top_level_are_unpaired():
    assert unpaired("x = 1\ny = 2\n", "x = 1\n...\n") == ["..."]


def test_markers_pair_in_order():
    old = "a\n# ...\nb\n"
    assert unpaired(old, "a2\n# ...\nb2\n") == []
    assert unpaired(old, "a2\n# ...\nb2\n# ... rest unchanged\n") == ["# ... rest unchanged"]
