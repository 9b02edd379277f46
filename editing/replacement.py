"""The write side: turn one match and the model's new text into file text.

Whatever drift was tolerated to find ``old`` is undone in ``new``:

- a line that is the same in ``old`` and ``new`` is context the model only
  copied, so it keeps the file's bytes (trailing blanks, typographic
  characters, line ending);
- a changed line is re-indented with the match's ``IndentMap``, loses
  trailing blanks the model added everywhere, and has its typographic
  characters put back in the file's terms character by character: those the
  model kept from ``old`` take the file's characters at that place, new ones
  are folded when the model was seen drifting that family of characters;
- new lines take the line ending of the lines they replace or follow.

``build`` chooses the write (a splice inside one line, a plain splice with
no drift to undo, or the general write) and assembles the lines; how one
changed line is put in the file's terms, and which ending each new line
takes, is ``line_rewrite``'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from .document import Document, Line
from .drift import Spans
from .errors import Ambiguous
from .indentation import IndentMap
from .line_diff import Opcode, Tag, line_opcodes
from .line_rewrite import (
    ending_around,
    eol_near,
    join_lines,
    learn_drift,
    rewrite_line,
    written_from,
)
from .matches import Level, Match
from .splice import one_line_indent, splice, within


@dataclass(frozen=True, slots=True)
class Replacement:
    """``view[start:end]`` becomes ``text`` (already in the file's own terms).

    ``start`` is a line start. ``ends_line`` says whether ``end`` is just
    past the newline of the last line replaced, rather than before it.
    """

    start: int
    end: int
    text: str
    ends_line: bool = True
    # The line diff the text was written from (old lines replaced -> lines of
    # ``text``, by position); the report starts from it rather than diffing again.
    opcodes: tuple[Opcode, ...] | None = field(default=None, compare=False, repr=False)
    # The old lines replaced and the lines of ``text``, as the report reads them,
    # when the write had them split already (the report need not split again).
    lines: tuple[list[str], list[str]] | None = field(default=None, compare=False, repr=False)


def _split(text: str) -> tuple[list[str], bool]:
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
        return lines, True
    return lines, False


def build(
    doc: Document,
    matches: Sequence[Match],
    old: str,
    new: str,
    path: str,
    *,
    marked: Sequence[Opcode] | None = None,
) -> Replacement:
    """The replacement for ``matches`` of ``old`` by ``new`` (both as the model meant them).

    ``matches`` are the matches that share lines (replace_all can find two on
    one line); whole-line matches always come alone. ``marked`` pairs old's
    lines with new's as a patch chunk's markers do; without it (or when it
    does not cover the lines) a line diff pairs them.
    """
    first, last = matches[0], matches[-1]
    start, end = doc.whole_lines(first.start, last.end, ends_line=last.ends_line)
    if _is_inside_one_line(doc, first, old, new, start) and not last.ends_line:
        return _one_line_splice(doc, (start, end), matches, old, new)
    # The spans of model_old and model_new the model wrote (None: all of them).
    written: tuple[Spans, Spans] | None = None
    if first.level == Level.EXACT or first.fragment:
        model_old, model_new, written = splice(doc.view, (start, end), matches, old, new)
        # A fragment's first line was placed after the file's own text already.
        reindent_first = first.start == start and not first.fragment
        indent = first.indent or one_line_indent(
            doc, matches, old, new, start=start, first_line=doc.view[start : doc.line_end(start)]
        )
    else:
        model_old, model_new, reindent_first, indent = old, new, True, first.indent

    old_lines, _ = _split(model_old)
    new_lines, new_ends_with_newline = _split(model_new)
    if _is_plain_splice(doc, first, indent):
        replacement = _plain_splice(
            doc,
            (start, end),
            old_lines,
            (new_lines, new_ends_with_newline),
            last,
            opcodes=_opcodes(old_lines, new_lines, marked),
            path=path,
        )
        if replacement.lines is not None and not _is_span(doc.view, model_old, (start, end)):
            # The model's old lines are not the file's (a deletion took the whole line).
            replacement = dataclasses.replace(replacement, lines=None)
        return replacement
    file_lines = doc.lines_between(start, end, ends_line=last.ends_line)
    if len(old_lines) != len(file_lines):
        raise _unpaired(doc, start, path)
    drift = learn_drift(doc, matches, old, old_lines, file_lines)
    around = ending_around(doc, start, end, file_lines, ends_line=last.ends_line)
    copies = {line.strip(): i for i, line in reversed(list(enumerate(old_lines)))}
    # Odd spaces in the model's indentation count as spaces once punctuation was folded.
    loose = first.level == Level.PUNCTUATION

    out: list[Line] = []
    opcodes = _opcodes(old_lines, new_lines, marked)
    old_offsets, new_offsets = _offsets(old_lines), _offsets(new_lines)
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            out.extend(file_lines[i1:i2])
            continue
        for j in range(j1, j2):
            paired = (
                written_from(new_lines[j], old_lines, (i1, i2), copies) if drift.folds else None
            )
            line_written = None
            if written is not None:
                at = old_offsets[paired] if paired is not None else 0
                size = len(old_lines[paired]) if paired is not None else 0
                line_written = (
                    within(written[0], at, at + size),
                    within(written[1], new_offsets[j], new_offsets[j] + len(new_lines[j])),
                )
            text = rewrite_line(
                new_lines[j],
                (old_lines[paired], file_lines[paired].text) if paired is not None else None,
                None if j == 0 and not reindent_first else indent,
                drift,
                path,
                loose_lead=loose,
                written=line_written,
            )
            out.append(Line(text, eol_near(file_lines, i1 + (j - j1), i1, i2, around)))

    if end == len(doc.view) and not doc.view.endswith("\n"):
        # A file without a final newline stays without one.
        new_ends_with_newline = False
    text = join_lines(out, new_ends_with_newline, around)
    return Replacement(start, end, text, last.ends_line, tuple(opcodes))


def _opcodes(
    old_lines: list[str], new_lines: list[str], marked: Sequence[Opcode] | None
) -> list[Opcode]:
    """``marked`` when it covers exactly these lines, else their line diff."""
    if marked and marked[-1][2] == len(old_lines) and marked[-1][4] == len(new_lines):
        return list(marked)
    return line_opcodes(old_lines, new_lines)


def _offsets(lines: list[str]) -> list[int]:
    """Where each of ``lines`` starts in the text they were split from."""
    offsets, at = [], 0
    for line in lines:
        offsets.append(at)
        at += len(line) + 1
    return offsets


def _is_plain_splice(doc: Document, first: Match, indent: IndentMap | None) -> bool:
    """Whether the general write below comes down to the model's new lines as
    they are: an exact whole-text match (no drift to learn or undo), no
    re-indentation, and every line ending LF (no ending to choose)."""
    return (
        first.level == Level.EXACT
        and not first.fragment
        and (indent is None or indent.is_identity)
        and not doc.has_crlf
    )


def _is_inside_one_line(doc: Document, first: Match, old: str, new: str, start: int) -> bool:
    """Whether the write is a plain splice of one line of text inside one line:
    ``new`` is then that line with old's places replaced (no line to re-indent,
    since the matches start after the line's own text)."""
    return (
        first.level == Level.EXACT
        and not first.fragment
        and first.start != start
        and "\n" not in old
        and "\n" not in new
        and not doc.has_crlf
    )


def _one_line_splice(
    doc: Document, region: tuple[int, int], matches: Sequence[Match], old: str, new: str
) -> Replacement:
    """``build`` for exact matches inside one line by one-line text."""
    start, end = region
    view = doc.view
    line_old = view[start:end]
    if any(match.fragment for match in matches):
        _, line_new, _ = splice(view, region, matches, old, new)
    else:  # old's places are the matches themselves: ``splice`` written out
        parts: list[str] = []
        cursor = start
        for match in matches:
            parts += (view[cursor : match.start], new)
            cursor = match.end
        parts.append(view[cursor:end])
        line_new = "".join(parts)
    tag: Tag = "equal" if line_new == line_old else "replace"
    text = line_new if tag == "equal" or line_new.strip() else ""
    return Replacement(start, end, text, False, ((tag, 0, 1, 0, 1),))


def _plain_splice(
    doc: Document,
    region: tuple[int, int],
    old_lines: list[str],
    new: tuple[list[str], bool],
    last: Match,
    *,
    opcodes: list[Opcode],
    path: str,
) -> Replacement:
    """``build`` for a plain splice: the lines old and new share are the
    file's own already; a changed line is written as the model wrote it,
    blank ones emptied (as ``rewrite_line`` does)."""
    start, end = region
    new_lines, new_ends_with_newline = new
    if len(old_lines) != doc.view.count("\n", start, end) + 1 - last.ends_line:
        raise _unpaired(doc, start, path)
    out: list[str] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            # The same lines: old's objects, so the report compares them by identity.
            out.extend(old_lines[i1:i2])
        else:
            out.extend(line if line.strip() else "" for line in new_lines[j1:j2])
    if end == len(doc.view) and not doc.view.endswith("\n"):
        # A file without a final newline stays without one.
        new_ends_with_newline = False
    text = "\n".join(out) + ("\n" if new_ends_with_newline and out else "")
    lines = (old_lines, out) if _read_back_as(text, out, last.ends_line or start == end) else None
    return Replacement(start, end, text, last.ends_line, tuple(opcodes), lines)


def _is_span(view: str, text: str, span: tuple[int, int]) -> bool:
    """Whether ``text`` is ``view[start:end]`` (compared in place, not copied out)."""
    start, end = span
    return len(text) == end - start and view.startswith(text, start)


def _read_back_as(text: str, out: list[str], ends_line: bool) -> bool:
    """Whether the report, splitting ``text`` again, would read exactly ``out``.

    It reads CRLF as LF, and drops a final newline when the replacement ends
    its line (an empty last line there is no line), keeps it as an empty
    line otherwise, where even an empty text is one (empty) line.
    """
    if "\r" in text:
        return False
    if ends_line:
        return not out or text.endswith("\n") or out[-1] != ""
    return bool(out) and not text.endswith("\n")


_UNPAIRED = (
    "Edit not applied to {path}: old was found at line {line}, but its lines could not be "
    "paired one for one with the file's there (old starts or ends inside a line, next to a "
    "blank or space-only line). Quote old as whole lines, from the start of its first line "
    "to the end of its last, and send the edit again."
)


def _unpaired(doc: Document, start: int, path: str) -> Ambiguous:
    """The refusal for a match whose lines and old's differ in number: the write pairs
    them line by line, so it would change lines the model did not quote."""
    line = doc.line_number(start)
    return Ambiguous(_UNPAIRED.format(path=path, line=line), path=path, line=line)
