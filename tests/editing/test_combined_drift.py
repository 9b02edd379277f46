"""Drifts combined, on the corpus's own applied edits.

Every single-edit case of the corpus that expects ``applied`` is replayed
with its old and new text drifted the ways models drift when copying
(deeper indentation, trailing blanks, curly quotes, escaped quotes, a
numbered-view prefix), alone and two or three at once, on the file as it is
and converted to CRLF. Each replay must give the case's expected files in the
file's own terms. A drift that would not change old (no quotes to curl) is
left out: without evidence in old, new cannot be corrected. So are requests
whose markup (Markdown fences, diff prefixes) is their drift already: the
drifts would shift the markup too, which no model does.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from editing import apply_edit, diff_prefixes, fences
from editing.disk.corpus import Case, load_cases
from editing.punctuation import fold
from tests.editing.support import CORPUS


def curl(text: str) -> str:
    out, opening = [], True
    for char in text:
        if char == '"':
            out.append("“" if opening else "”")
            opening = not opening
        else:
            out.append(char)
    return "".join(out)


def deeper(text: str) -> str:
    return "\n".join("    " + line if line.strip() else line for line in text.split("\n"))


def trailing(text: str) -> str:
    return "\n".join(line + "  " if line else line for line in text.split("\n"))


def escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def numbered(text: str) -> str:
    lines = text.split("\n")
    final_newline = lines[-1] == ""
    if final_newline:
        lines.pop()
    out = "\n".join(f"{40 + i:>6}→{line}" for i, line in enumerate(lines))
    return out + ("\n" if final_newline else "")


DRIFTS: dict[str, Callable[[str], str]] = {
    "indent": deeper,
    "trailing": trailing,
    "curly": curl,
    "escaped": escaped,
    "numbered": numbered,  # applied last: a view prefix comes after any other drift
}
# Cases whose request already carries that drift (escaping twice is two levels).
ALREADY = {"escapes": "escaped", "line_numbers": "numbered"}


def meaningful(name: str, old: str) -> bool:
    """Whether a model could drift ``old`` that way (and old shows it)."""
    if DRIFTS[name](old) == old:
        return False
    if name == "curly" and '\\"' in old:
        return False  # quotes the model escaped are not also curled
    one_escaped_line = "\n" not in old and "\\n" in old
    return not (name in ("indent", "trailing") and one_escaped_line)


def indent_drift_possible(old: str, case: Case) -> bool:
    """Whether quoting old deeper is indentation drift: not when old is one line
    from mid-line (blanks before it say it was quoted from a line's start), or
    when the deeper text is itself in the file."""
    text = case.files[case.request["path"]]
    if deeper(old) in text:
        return False
    if "\n" in old.rstrip("\n"):
        return True
    first = fold(old).strip()
    return any(fold(line).strip().startswith(first) for line in text.split("\n"))


def wrapped(case: Case) -> bool:
    """Whether the request's old and new carry markup that is not the file's."""
    old, new = case.request["old"], case.request["new"]
    if old in case.files[case.request["path"]]:
        return False
    return fences.strip_request(old, new) is not None or (
        diff_prefixes.strip_request(old, new) is not None
    )


def replays() -> list[tuple[Case, tuple[str, ...], bool]]:
    out = []
    for case in load_cases(CORPUS):
        request = case.request
        if request["tool"] != "edit" or case.expect["outcome"] != "applied":
            continue
        if request["path"] not in case.files:
            continue  # a path the tools read first (./src/a.py): the paths' cases, not drift
        if request.get("replace_all") or wrapped(case):
            continue
        for size in (1, 2, 3):
            for combo in itertools.combinations(DRIFTS, size):
                if ALREADY.get(case.category) in combo:
                    continue
                if not all(meaningful(name, request["old"]) for name in combo):
                    continue
                if "indent" in combo and not indent_drift_possible(request["old"], case):
                    continue
                for crlf in (False, True):
                    if crlf and "\r" in case.files[request["path"]]:
                        continue
                    out.append((case, combo, crlf))
    return out


REPLAYS = replays()


def test_there_are_replays_of_every_drift():
    seen = {name for _, combo, _ in REPLAYS for name in combo}
    assert seen == set(DRIFTS)
    assert len(REPLAYS) > 300


@pytest.mark.parametrize(
    ("case", "combo", "crlf"),
    REPLAYS,
    ids=[f"{c.id}-{'+'.join(combo)}{'-crlf' if crlf else ''}" for c, combo, crlf in REPLAYS],
)
def test_drifted_request_gives_the_expected_file(case: Case, combo: tuple[str, ...], crlf: bool):
    request = case.request
    path = request["path"]
    old, new = request["old"], request["new"]
    for name in combo:
        old, new = DRIFTS[name](old), DRIFTS[name](new)
    text = case.files[path]
    expected = case.expect["files"][path]
    if crlf:
        text, expected = text.replace("\n", "\r\n"), expected.replace("\n", "\r\n")
    assert apply_edit(text, old, new, path=path).text == expected
