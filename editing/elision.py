"""Elision lines: text a model writes to stand for code it did not repeat.

``# ... existing code ...``, ``// ... rest of the function unchanged``,
``/* ... */`` or a bare ``...``. In ``new`` without a twin in ``old`` such a
line would replace real code with a comment: the request is refused. The
same line in both ``old`` and ``new`` stands for unchanged lines, and the
request is split at it (see ``split``). A bare ``...`` under a block header
(``def f():``) is Python's stub body, and one after a doctest prompt line
ends a doctest block: both are code. Once old was found as a whole, its
bare ``...`` lines are the file's text (a console sample, a YAML document
end) and pair only with themselves (see ``unpaired``).
"""

from __future__ import annotations

import re

from .line_diff import line_opcodes

_COMMENT = r"(?:#+|//+|/\*+|<!--|--|;+|%+|\*)"
_CLOSE = r"(?:\*+/|-->)?"
_DOTS = r"(?:\.{3,}|…)"
_WORDS = (
    r"(?:existing|unchanged|omitted|elided|same|rest|remaining|remainder|previous|other|more|"
    r"as before|snip)"
)
_BARE = re.compile(rf"^{_DOTS}$")
# A comment that starts or ends with dots and says nothing else, or says
# one of the elision words.
_DOTTED = re.compile(
    rf"^{_COMMENT}\s*(?:{_DOTS}\s*(?:\(?[^.…]*\)?\s*{_DOTS}?)?|[^.…]*{_DOTS})\s*{_CLOSE}$",
    re.IGNORECASE,
)
_WORDED = re.compile(
    rf"^{_COMMENT}\s*\(?\s*(?:"
    rf"(?:the\s+)?(?:rest|remainder)\s+of\s+(?:the\s+)?\w+(?:\s+\w+)?\s+"
    rf"(?:is\s+|are\s+|remains?\s+|stays?\s+)?(?:unchanged|the\s+same|as\s+before|omitted)"
    rf"|(?:\w+\s+)?(?:existing|unchanged|previous)\s+(?:code|implementation|content|methods?"
    rf"|functions?|lines?|body)(?:\s+(?:here|unchanged|omitted|remains?(?:\s+the\s+same)?))?"
    rf")\s*\)?\s*{_CLOSE}$",
    re.IGNORECASE,
)
_NOISE = re.compile(rf"\*+/|-->|{_COMMENT}|{_DOTS}|[()\s]")
_ELISION_WORD = re.compile(rf"\b{_WORDS}\b", re.IGNORECASE)
# Every elision line has dots or one of these words (each pattern above
# requires one): a line with none of them is no marker, so ``markers`` only
# looks at the lines that have one. Same flags as the patterns, so that the
# characters IGNORECASE folds (a long s, a Kelvin sign) are candidates too.
_CANDIDATES = ("...", "…", "rest", "remainder", "existing", "unchanged", "previous")
_CANDIDATE = re.compile("|".join(map(re.escape, _CANDIDATES)), re.IGNORECASE)
# For ASCII text, lowered first: the same matches, several times faster.
_CANDIDATE_LOWER = re.compile("|".join(map(re.escape, _CANDIDATES)))


def is_marker(line: str) -> bool:
    """Whether ``line`` (any indentation) is an elision line.

    A comment made only of dots, or dots with a few words, or a few words
    saying "existing code" or "rest unchanged". A comment that merely
    contains an ellipsis mid-sentence ("# wait for ... then retry") is not.
    """
    text = line.strip()
    if not text:
        return False
    if _BARE.match(text):
        return True
    if _WORDED.match(text):
        return True
    match = _DOTTED.match(text)
    if not match:
        return False
    words = _NOISE.sub(" ", text).split()
    return not words or bool(_ELISION_WORD.search(text))


def _is_python_stub(lines: list[str], index: int) -> bool:
    """A bare ``...`` indented under a line ending in ``:`` is a Python stub
    body; right after a doctest prompt line at its indentation it is the
    prompt that ends a doctest block."""
    if lines[index].strip() not in ("...", "…"):
        return False
    if _after_doctest_prompt(lines, index):
        return True
    indent = len(lines[index]) - len(lines[index].lstrip())
    for previous in reversed(lines[:index]):
        if previous.strip():
            code = previous.split("#", 1)[0].rstrip()
            return code.endswith(":") and len(previous) - len(previous.lstrip()) < indent
    return False


def _after_doctest_prompt(lines: list[str], index: int) -> bool:
    """Whether the line before ``lines[index]`` is a doctest prompt line
    (``>>> `` or ``... ``) at the same indentation."""
    if index == 0 or lines[index].strip() != "...":
        return False
    previous, line = lines[index - 1], lines[index]
    indent = line[: len(line) - len(line.lstrip())]
    return previous.startswith((indent + ">>> ", indent + "... "))


def markers(text: str, *, stubs: bool = True) -> list[int]:
    """Indexes of the elision lines of ``text``.

    With ``stubs=False`` a bare ``...`` that reads as a Python stub body is
    left out: in new text it is code, not an omission.
    """
    candidates = _candidate_lines(text)
    if not candidates:
        return []
    lines = text.split("\n")
    return [
        i for i in candidates if is_marker(lines[i]) and (stubs or not _is_python_stub(lines, i))
    ]


def _candidate_lines(text: str) -> list[int]:
    """Indexes of the lines of ``text`` that have dots or an elision word, in order."""
    if text.isascii():
        text = text.lower()
        if not any(word in text for word in _CANDIDATES):
            return []
        candidates = _CANDIDATE_LOWER.finditer(text)
    else:
        candidates = _CANDIDATE.finditer(text)
    indexes: list[int] = []
    line = 0
    counted_to = 0
    for found in candidates:
        at = found.start()
        line += text.count("\n", counted_to, at)
        counted_to = at
        if not indexes or indexes[-1] != line:
            indexes.append(line)
    return indexes


def unpaired(old: str, new: str, *, dots_are_content: bool = False) -> list[str]:
    """Elision lines of ``new`` that have no twin in ``old``, in order.

    An elision line of ``new`` that the line diff keeps from ``old`` (the
    same line at the corresponding place) is paired with it. The others
    pair in order with ``old``'s elision lines left over; any beyond those
    are unpaired. With ``dots_are_content`` (old was found as a whole, so
    its lines are the file's own at that place) a bare ``...`` of ``old`` is
    text, a console's or a doctest's, and pairs only with itself kept in
    place: it stands for no lines, and is no twin for a new elision line.
    """
    in_new = markers(new)
    if not in_new:
        return []  # the common case: then old's need not be looked for
    in_old = markers(old)
    if len(in_new) <= len(in_old) and not dots_are_content:
        return []  # as many twins in order, wherever they are
    old_lines, new_lines = old.split("\n"), new.split("\n")
    kept = _kept_in_place(old_lines, new_lines)
    paired = {kept[j] for j in in_new if kept.get(j) in in_old}
    loose = [j for j in in_new if kept.get(j) not in paired]
    spare = [
        i
        for i in in_old
        if i not in paired and not (dots_are_content and _BARE.match(old_lines[i].strip()))
    ]
    extra = loose[len(spare) :]
    return [new_lines[j].strip() for j in extra if not _is_python_stub(new_lines, j)]


def _kept_in_place(old_lines: list[str], new_lines: list[str]) -> dict[int, int]:
    """New line index -> old line index, for the lines the line diff keeps."""
    kept: dict[int, int] = {}
    for tag, i1, i2, j1, _ in line_opcodes(old_lines, new_lines):
        if tag == "equal":
            kept.update(zip(range(j1, j1 + i2 - i1), range(i1, i2), strict=True))
    return kept


def split(text: str) -> tuple[list[str], list[str]]:
    """``text`` cut at its elision lines: the segments between them, and the markers.

    Segments keep their own newlines; a segment ends with ``\\n`` when the
    line before the marker did.
    """
    lines = text.split("\n")
    marker_indexes = markers(text)
    segments: list[str] = []
    start = 0
    for index in marker_indexes:
        segments.append("\n".join(lines[start:index]) + ("\n" if index > start else ""))
        start = index + 1
    segments.append("\n".join(lines[start:]))
    return segments, [lines[i] for i in marker_indexes]
