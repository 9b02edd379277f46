"""The general write, one line at a time: new's changed lines in the file's terms.

``learn_drift`` reads the drift the model showed in the lines old matched;
``written_from`` finds the old line a changed line was written from, and
``rewrite_line`` puts the changed line in the file's terms: re-indented
with the match's ``IndentMap``, its typographic characters the file's where
the model kept them and folded where it drifted, trailing blanks the model
added everywhere dropped. ``eol_near``, ``ending_around`` and
``join_lines`` give each new line the ending of the lines it replaces or
follows. ``replacement.build`` runs these over the lines its diff changed.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import indentation, messages, punctuation
from .document import Document, Line
from .drift import NEAR, Drift, Spans, UncertainCharacter, in_file_terms, pair
from .errors import InvalidRequest
from .indentation import IndentMap
from .matches import Level, Match
from .splice import outer_blanks, within


def learn_drift(
    doc: Document, matches: Sequence[Match], old: str, old_lines: list[str], file_lines: list[Line]
) -> Drift:
    """The drift the model showed in the lines old matched."""
    first, last = matches[0], matches[-1]
    drift = Drift()
    if first.level > Level.EXACT:
        for model_line, file_line in zip(old_lines, file_lines, strict=True):
            drift.learn(model_line, file_line.text, first.level)
    if first.fragment:
        # The fragment's own blanks were stripped before matching; learn from them.
        trail = outer_blanks(old, first.level)[1]
        after = doc.view[last.end : last.end + len(trail)]
        drift.adds_trailing = bool(trail) and punctuation.fold(after) != punctuation.fold(trail)
    return drift


def ending_around(
    doc: Document, start: int, end: int, file_lines: list[Line], *, ends_line: bool
) -> str:
    """The ending a line takes when the replaced line in its place has none: the
    ending the replaced text stops before, else (the file's last line) that of
    the line before it."""
    if not ends_line and end < len(doc.view):
        return doc.eol_at(end)
    if len(file_lines) > 1:
        return file_lines[-2].eol
    return doc.eol_at(start - 1) if start > 0 else doc.eol


def written_from(
    line: str, old_lines: list[str], replaced: tuple[int, int], copies: dict[str, int]
) -> int | None:
    """The old line a changed line was written from: one it replaces, else one
    near those (the diff may align a changed copy either way), else an
    identical old line anywhere (lines moved)."""
    i1, i2 = replaced
    found = pair(line, old_lines, i1, i2)
    if found is None:
        found = pair(line, old_lines, max(0, i1 - NEAR), i2 + NEAR)
    if found is None:
        found = copies.get(line.strip())
    return found


def eol_near(file_lines: list[Line], at: int, i1: int, i2: int, around: str) -> str:
    """The ending of the old line a new line takes the place of, else of its neighbours.

    ``[i1, i2)`` are the old lines the block of new lines replaces (empty for
    an insertion), ``at`` the one in the new line's position; ``around`` is
    the ending to take when none of the replaced lines has one.
    """
    for index in (min(at, i2 - 1), i1 - 1, i2):
        if 0 <= index < len(file_lines) and file_lines[index].eol:
            return file_lines[index].eol
    return around


def rewrite_line(
    line: str,
    paired: tuple[str, str] | None,
    indent: IndentMap | None,
    drift: Drift,
    path: str,
    *,
    loose_lead: bool = False,
    written: tuple[Spans, Spans] | None = None,
) -> str:
    """One changed line of ``new`` in the file's terms.

    With ``loose_lead`` odd spaces in the line's indentation are spaces (the
    match read the quoted lines' indentation that way). ``written`` are the
    spans of the paired old line and of ``line`` the model wrote (None: all).
    """
    if not line.strip():
        return ""
    if loose_lead:
        lead, body = indentation.model_leading(line)
    else:
        lead = indentation.leading(line)
        body = line[len(lead) :]
    if indent is not None and not indent.is_identity:
        mapped = indent.apply(lead)
        if mapped is None:
            raise InvalidRequest(
                messages.INDENT_UNMAPPABLE.format(path=path, line=line.strip()), path=path
            )
        lead = mapped
    if drift.folds:
        try:
            skip = len(line) - len(body)
            own = None if written is None else (written[0], within(written[1], skip, len(line)))
            body = in_file_terms(body, paired, drift, own)
        except UncertainCharacter as uncertain:
            raise InvalidRequest(
                messages.TYPOGRAPHIC_UNCERTAIN.format(
                    path=path,
                    file_char=messages.char_name(uncertain.file_char),
                    model_char=uncertain.model_char,
                    line=line.strip(),
                ),
                path=path,
            ) from None
    if drift.adds_trailing:
        body = body.rstrip()
    return lead + body


def join_lines(lines: list[Line], ends_with_newline: bool, around: str) -> str:
    parts = []
    for index, line in enumerate(lines):
        last = index == len(lines) - 1
        if last and not ends_with_newline:
            parts.append(line.text)
        else:
            parts.append(line.text + (line.eol or around))
    return "".join(parts)
