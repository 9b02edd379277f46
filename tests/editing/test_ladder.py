"""The tolerance ladder: each drift a model makes when copying text, and its undoing.

Each case is ``(file, old, new, expected file, level that matched)`` or, for a
refusal, ``(file, old, new, reason)``; the ids say what the case shows.
"""

import pytest

from editing import Level, Reason, apply_edit
from tests.editing.support import refusal

METHOD = """\
class Account:
    def withdraw(self, amount):
        if amount > self.balance:
            raise ValueError("insufficient funds")
        self.balance -= amount
        return self.balance
"""

APPLIED = {
    # -- trailing whitespace ---------------------------------------------------
    # The unchanged line keeps its trailing blanks; the changed one is the model's.
    "trailing blanks the model dropped are tolerated": (
        "a = 1  \nb = 2\t\nc = 3\n",
        "a = 1\nb = 2\n",
        "a = 1\nb = 20\n",
        "a = 1  \nb = 20\nc = 3\n",
        Level.TRAILING_WHITESPACE,
    ),
    "trailing blanks the model added are not written": (
        "a = 1\nb = 2\nc = 3\n",
        "a = 1  \nb = 2  \n",
        "a = 1  \nb = 20  \n",
        "a = 1\nb = 20\nc = 3\n",
        Level.TRAILING_WHITESPACE,
    ),
    "blank line with spaces in the file stays as it is": (
        "def f():\n    x = 1\n    \n    return x\n",
        "    x = 1\n\n    return x\n",
        "    x = 2\n\n    return x\n",
        "def f():\n    x = 2\n    \n    return x\n",
        Level.TRAILING_WHITESPACE,
    ),
    # -- indentation -----------------------------------------------------------
    "block quoted deeper is reindented to the file": (
        METHOD,
        '            if amount > self.balance:\n                raise ValueError("insufficient funds")\n',
        "            if amount > self.balance:\n                raise InsufficientFunds(amount)\n",
        METHOD.replace('ValueError("insufficient funds")', "InsufficientFunds(amount)"),
        Level.INDENTATION,
    ),
    "block quoted without its common indentation gets it back": (
        METHOD,
        "self.balance -= amount\nreturn self.balance\n",
        "self.balance -= amount\nif self.balance < 0:\n    raise AssertionError\nreturn self.balance\n",
        METHOD.replace(
            "        return self.balance\n",
            "        if self.balance < 0:\n            raise AssertionError\n"
            "        return self.balance\n",
        ),
        Level.INDENTATION,
    ),
    "spaces per level become the file's tabs": (
        "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
        "    if x {\n        return 1\n    }\n",
        "    if x {\n        if y {\n            return 2\n        }\n        return 1\n    }\n",
        "func f() {\n\tif x {\n\t\tif y {\n\t\t\treturn 2\n\t\t}\n\t\treturn 1\n\t}\n}\n",
        Level.INDENTATION,
    ),
    "tabs become the file's spaces": (
        METHOD,
        "\tdef withdraw(self, amount):\n\t\tif amount > self.balance:\n",
        "\tdef withdraw(self, amount):\n\t\tif amount >= self.balance:\n",
        METHOD.replace(">", ">=", 1),
        Level.INDENTATION,
    ),
    "two-space file and four-space model": (
        "function f() {\n  if (x) {\n    return 1;\n  }\n}\n",
        "    if (x) {\n        return 1;\n    }\n",
        "    if (x) {\n        log(x);\n        return 1;\n    }\n",
        "function f() {\n  if (x) {\n    log(x);\n    return 1;\n  }\n}\n",
        Level.INDENTATION,
    ),
    # -- punctuation -----------------------------------------------------------
    "curly quotes in old and new are written as the file's ASCII": (
        METHOD,
        "raise ValueError(“insufficient funds”)",
        "raise ValueError(“not enough money”)",
        METHOD.replace("insufficient funds", "not enough money"),
        Level.PUNCTUATION,
    ),
    "curly quote the file really has stays curly": (
        'msg = "You can’t do “that”."\nother = "x"\n',
        "msg = “You can’t do “that”.”\nother = “x”\n",
        "msg = “You can’t do “that” here.”\nother = “x”\n",
        'msg = "You can’t do “that” here."\nother = "x"\n',
        Level.PUNCTUATION,
    ),
    "em dash for double hyphen on a context line keeps the file's bytes": (
        "case $1 in\n  --dry-run) DRY=1 ;;\n  *) usage ;;\nesac\n",
        "  —dry-run) DRY=1 ;;\n  *) usage ;;\n",
        "  —dry-run) DRY=1 ;;\n  -h) help ;;\n  *) usage ;;\n",
        "case $1 in\n  --dry-run) DRY=1 ;;\n  -h) help ;;\n  *) usage ;;\nesac\n",
        Level.PUNCTUATION,
    ),
    "non-breaking spaces become spaces": (
        METHOD,
        "self.balance\u00a0-=\u00a0amount\n",
        "self.balance\u00a0-=\u00a0amount\u00a0+\u00a0fee\n",
        METHOD.replace("-= amount", "-= amount + fee"),
        Level.PUNCTUATION,
    ),
    "file with curly quotes found from ASCII old": (
        "title = “Report”\ncount = 1\n",
        'title = "Report"\ncount = 1\n',
        'title = "Report"\ncount = 2\n',
        "title = “Report”\ncount = 2\n",
        Level.PUNCTUATION,
    ),
    # -- escapes ---------------------------------------------------------------
    "escaped quotes with real newlines": (
        '{\n  "a": "x",\n  "b": "y"\n}\n',
        '  \\"a\\": \\"x\\",\n',
        '  \\"a\\": \\"z\\",\n',
        '{\n  "a": "z",\n  "b": "y"\n}\n',
        Level.ESCAPES,
    ),
    "whole text escaped on one line": (
        'if x:\n    print("a")\n',
        'if x:\\n    print(\\"a\\")',
        'if x:\\n    print(\\"b\\")',
        'if x:\n    print("b")\n',
        Level.ESCAPES,
    ),
    # Only quotes were escaped in old, so new's \\n is the model's real code.
    "literal backslash n in new survives quote unescaping": (
        'msg = "a"\n',
        'msg = \\"a\\"\n',
        'msg = \\"a\\\\nb\\"\n',
        'msg = "a\\nb"\n',
        Level.ESCAPES,
    ),
    "backslashes the file really has are matched exactly first": (
        'echo "not \\"$b\\"" >&2\n',
        'echo "not \\"$b\\"" >&2\n',
        'echo "no \\"$b\\"" >&2\n',
        'echo "no \\"$b\\"" >&2\n',
        Level.EXACT,
    ),
    # -- line-number prefixes --------------------------------------------------
    "prefix-like text the file really has is not stripped": (
        "hours:\n12: 40\n13: 40\n14: 60\n",
        "12: 40\n13: 40\n",
        "12: 25\n13: 25\n",
        "hours:\n12: 25\n13: 25\n14: 60\n",
        Level.EXACT,
    ),
    "prefixes with indentation drift": (
        METHOD,
        '5: if amount > self.balance:\n6:     raise ValueError("insufficient funds")\n',
        "5: if amount > self.balance:\n6:     raise KeyError(amount)\n",
        METHOD.replace('ValueError("insufficient funds")', "KeyError(amount)"),
        Level.INDENTATION,
    ),
    # -- stops at the first level that matches -----------------------------------
    # Exact text occurs once; a looser level would also find the indented copy.
    "uniqueness is counted at the level that matched": (
        "x = 1\ny = 2\n\ndef f():\n    x = 1\n    y = 2\n",
        "x = 1\ny = 2\n",
        "x = 1\ny = 3\n",
        "x = 1\ny = 3\n\ndef f():\n    x = 1\n    y = 2\n",
        Level.EXACT,
    ),
    "single line quoted deeper takes its added lines along": (
        "nodeSelector: {}\ntolerations: []",
        "    tolerations: []",
        "    tolerations:\n      - key: dedicated\n        effect: NoSchedule",
        "nodeSelector: {}\ntolerations:\n  - key: dedicated\n    effect: NoSchedule",
        Level.TRAILING_WHITESPACE,
    ),
}


@pytest.mark.parametrize(
    ("text", "old", "new", "expected", "level"), APPLIED.values(), ids=APPLIED.keys()
)
def test_drift_is_tolerated_and_undone(text, old, new, expected, level):
    result = apply_edit(text, old, new)
    assert result.text == expected
    assert result.level == level


REFUSED = {
    # The model flattened a nested line: a real difference in Python.
    "inconsistent relative indentation is not drift": (
        METHOD,
        '        if amount > self.balance:\n        raise ValueError("insufficient funds")\n',
        '        if amount > self.balance:\n        raise KeyError("insufficient funds")\n',
        Reason.NOT_FOUND,
    ),
    "new line shallower than the removed offset": (
        METHOD,
        "            self.balance -= amount\n",
        "            self.balance -= amount\nprint('done')\n",
        Reason.INVALID_REQUEST,
    ),
    "same block at two depths quoted at a third is ambiguous": (
        "def a():\n    x = 1\n    y = 2\n\ndef b():\n    if c:\n        x = 1\n        y = 2\n",
        "x = 1\ny = 2\n",
        "x = 1\ny = 3\n",
        Reason.AMBIGUOUS,
    ),
    "changing only the drifted quotes is no change": (
        METHOD,
        "ValueError(“insufficient funds”)",
        'ValueError("insufficient funds")',
        Reason.NO_CHANGE,
    ),
    "numbers that do not count up are not a view": (
        METHOD,
        "7: self.balance -= amount\n3: return self.balance\n",
        "7: self.balance -= 2\n3: return self.balance\n",
        Reason.NOT_FOUND,
    ),
}


@pytest.mark.parametrize(("text", "old", "new", "reason"), REFUSED.values(), ids=REFUSED.keys())
def test_drift_that_is_no_drift_is_refused(text, old, new, reason):
    assert refusal(apply_edit, text, old, new).reason == reason


@pytest.mark.parametrize(
    "prefixes",
    [
        ["     2→", "     3→"],
        ["2: ", "3: "],
        ["     2\t", "     3\t"],
    ],
    ids=["arrow", "colon", "cat-n"],
)
def test_view_prefixes_are_stripped(prefixes):
    first, second = prefixes
    old = f"{first}    def withdraw(self, amount):\n{second}        if amount > self.balance:\n"
    new = f"{first}    def withdraw(self, amount):\n{second}        if amount >= self.balance:\n"
    result = apply_edit(METHOD, old, new)
    assert result.text == METHOD.replace(">", ">=", 1)
    assert any("line-number" in note for note in result.notes)
