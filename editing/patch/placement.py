"""Write a located patch chunk's new lines, each placed by its position in the chunk.

A context line keeps the file line it stands for, a ``-`` line removes its
own file line. A diff of the chunk's old and new lines would do the same
unless lines repeat (blank lines, twin lines); those can differ in bytes
the match ignores (a CRLF, trailing blanks), and the diff could keep the
one the chunk removes. So ``by_position`` pairs the lines as the chunk's
markers pair them (``marked_groups``, ``marked_opcodes``), and writes a
chunk whose diff would pair them otherwise one run of changes at a time.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .. import indentation
from ..document import Document, Line
from ..line_diff import Opcode, line_opcodes
from ..matches import Level, Match
from ..replacement import Replacement, build
from .model import ADDED, CONTEXT, REMOVED, Chunk

Group = tuple[int, int, int, int]  # old lines [i1, i2) become new lines [j1, j2)


def by_position(
    doc: Document, match: Match, chunk: Chunk, texts: tuple[str, str], path: str
) -> list[Replacement]:
    """The replacements that write a located chunk's new lines.

    One replacement for the whole chunk when the diff of its old and new
    lines keeps every context line in its place (``build`` then writes what
    the chunk marked), or when it pairs them otherwise but writes the very
    bytes the markers would. Otherwise one per run of ``-`` and ``+``
    lines, each with the context lines before it (a diff keeps a common
    head in place, so those stay where they are), so that repeated lines
    cannot trade places across a context line. A run is then written with
    what its own lines show of the model's drift, and the trailing blanks
    the chunk's old lines show the model adding are taken off its ``+``
    lines first; a chunk found by folding punctuation (drift a run may not
    show) is written whole. Either way ``build`` pairs the lines as the
    markers do (``marked_opcodes``), not by a diff of their text.
    """
    old, new = texts
    old_lines, new_lines = old.split("\n")[:-1], new.split("\n")[:-1]
    context, groups = marked_groups(chunk)
    marked = marked_opcodes((old_lines, new_lines), context, groups)
    # Built first in every case: a refusal it gives (new lines that cannot be
    # re-indented) stands whichever way the chunk is written.
    whole = [build(doc, [match], old, new, path, marked=marked)]
    if (
        len(old_lines) != len(chunk.old_lines)
        or len(new_lines) != len(chunk.new_lines)
        or match.fragment
        or match.level >= Level.PUNCTUATION
        or keeps_context(old_lines, new_lines, context)
    ):
        return whole
    file_lines = doc.lines_between(match.start, match.end, ends_line=match.ends_line)
    if len(file_lines) != len(old_lines):
        return whole
    added = {j for j, marker in enumerate(_new_markers(chunk)) if marker == ADDED}
    trailing = _adds_trailing(old_lines, file_lines)
    new_lines = [
        line.rstrip() if trailing and j in added else line for j, line in enumerate(new_lines)
    ]
    if _diff_writes_the_same(match, file_lines, (old_lines, new_lines), context, added):
        return whole
    starts = _line_starts(doc, match, len(old_lines))
    pieces = _pieces(old_lines, new_lines, groups)
    if pieces is None:
        return whole
    replacements = []
    for i1, i2, j1, j2 in pieces:
        end = starts[i2] if i2 < len(old_lines) else match.end
        ends_line = match.ends_line if i2 == len(old_lines) else True
        sub = dataclasses.replace(match, start=starts[i1], end=end, ends_line=ends_line)
        piece_old = "".join(line + "\n" for line in old_lines[i1:i2])
        piece_new = "".join(line + "\n" for line in new_lines[j1:j2])
        if piece_old != piece_new:
            piece_marked = within_piece(marked, (i1, i2, j1, j2))
            replacements.append(build(doc, [sub], piece_old, piece_new, path, marked=piece_marked))
    _, last_old, first_new, last_new = pieces[-1]
    at_end = not match.ends_line and match.end == len(doc.view)
    if at_end and first_new == last_new and last_old == len(old_lines):
        # The file's last lines removed: the line before them ends the file now.
        return [_ending_as_before(match, file_lines, starts, replacements)]
    return replacements


def _ending_as_before(
    match: Match, file_lines: list[Line], starts: list[int], replacements: list[Replacement]
) -> Replacement:
    """The pieces of a chunk whose last piece removes the file's last lines (which
    end without a newline), as one replacement that ends without one too."""
    parts: list[str] = []
    at = 0  # the next file line not yet written
    for replacement in replacements:
        first = starts.index(replacement.start)
        parts += [line.text + line.eol for line in file_lines[at:first]]
        parts.append(replacement.text)
        at = next((k for k, start in enumerate(starts) if start >= replacement.end), len(starts))
        if replacement.end == match.end:
            at = len(starts)
    parts += [line.text + line.eol for line in file_lines[at:]]
    text = "".join(parts)
    for eol in ("\r\n", "\n"):
        if text.endswith(eol):
            text = text[: -len(eol)]
            break
    return Replacement(match.start, match.end, text, False)


def _new_markers(chunk: Chunk) -> list[str]:
    return [marker for marker, _ in chunk.lines if marker != REMOVED]


def _adds_trailing(old_lines: list[str], file_lines: list[Line]) -> bool:
    """Whether the quoted lines show trailing blanks the file's lines lack."""
    return any(
        quoted.strip() and quoted != quoted.rstrip() and line.text == line.text.rstrip()
        for quoted, line in zip(old_lines, file_lines, strict=True)
    )


def _diff_writes_the_same(
    match: Match,
    file_lines: list[Line],
    lines: tuple[list[str], list[str]],
    context: list[tuple[int, int]],
    added: set[int],
) -> bool:
    """Whether the diff of the chunk's old and new lines, though it pairs them
    otherwise than the markers do, writes the very bytes they would: each
    context line the file's copy of a line with the same bytes (not one that
    differs in what the match ignored: trailing blanks, line ending), each
    added line paired with a file line only where that line reads as it
    would be written. Lines of several endings never are: an added line
    takes the ending of the line it is paired with."""
    if len({line.eol for line in file_lines if line.eol}) > 1:
        return False
    old_lines, new_lines = lines
    paired = {
        j: i
        for tag, i1, i2, j1, j2 in line_opcodes(old_lines, new_lines)
        if tag == "equal"
        for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
    }
    for i, j in context:
        if j not in paired or file_lines[paired[j]] != file_lines[i]:
            return False
    return all(
        j not in paired or file_lines[paired[j]].text == _written(new_lines[j], match)
        for j in added
    )


def _written(text: str, match: Match) -> str | None:
    """An added line as the write puts it in the file (None: unknown)."""
    if not text.strip():
        return ""
    if match.indent is None or match.indent.is_identity:
        return text
    lead = indentation.leading(text)
    mapped = match.indent.apply(lead)
    return None if mapped is None else mapped + text[len(lead) :]


def marked_groups(chunk: Chunk) -> tuple[list[tuple[int, int]], list[Group]]:
    """The chunk's context lines (old index, new index) and its runs of ``-``
    and ``+`` lines, by their markers."""
    context: list[tuple[int, int]] = []
    groups: list[Group] = []
    i = j = 0
    opened: tuple[int, int] | None = None
    for marker, _ in chunk.lines:
        if marker == CONTEXT:
            if opened is not None:
                groups.append((opened[0], i, opened[1], j))
                opened = None
            context.append((i, j))
            i, j = i + 1, j + 1
            continue
        if opened is None:
            opened = (i, j)
        i, j = (i + 1, j) if marker == REMOVED else (i, j + 1) if marker == ADDED else (i, j)
    if opened is not None:
        groups.append((opened[0], i, opened[1], j))
    return context, groups


def marked_opcodes(
    lines: tuple[Sequence[str], Sequence[str]],
    context: list[tuple[int, int]],
    groups: list[Group],
) -> list[Opcode]:
    """The chunk's old lines paired with its new ones as its markers pair them:
    context lines equal, each run of ``-`` and ``+`` lines diffed on its own
    (a line the run removes and adds again is one the model only copied)."""
    old_lines, new_lines = lines
    runs: list[Opcode] = [("equal", i, i + 1, j, j + 1) for i, j in context]
    for i1, i2, j1, j2 in groups:
        runs += [
            (tag, a1 + i1, a2 + i1, b1 + j1, b2 + j1)
            for tag, a1, a2, b1, b2 in line_opcodes(old_lines[i1:i2], new_lines[j1:j2])
        ]
    runs.sort(key=lambda run: (run[1], run[3]))
    opcodes: list[Opcode] = []
    for run in runs:
        if opcodes and run[0] == opcodes[-1][0] == "equal":
            _, i1, _, j1, _ = opcodes[-1]
            opcodes[-1] = ("equal", i1, run[2], j1, run[4])
        else:
            opcodes.append(run)
    return opcodes


def within_piece(opcodes: list[Opcode], piece: Group) -> list[Opcode]:
    """``opcodes`` cut to the lines of ``piece``, counted from its first lines
    (a piece cuts only between context lines, never inside a run)."""
    i0, i9, j0, j9 = piece
    out: list[Opcode] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            start, stop = max(i1, i0), min(i2, i9)
            if start < stop:
                shift = j1 - i1
                out.append(("equal", start - i0, stop - i0, start + shift - j0, stop + shift - j0))
        elif i0 <= i1 and i2 <= i9 and j0 <= j1 and j2 <= j9:
            out.append((tag, i1 - i0, i2 - i0, j1 - j0, j2 - j0))
    return out


def keeps_context(
    old_lines: Sequence[str], new_lines: Sequence[str], context: list[tuple[int, int]]
) -> bool:
    """Whether the diff of old and new lines pairs every context line with itself."""
    kept: set[tuple[int, int]] = set()
    for tag, i1, i2, j1, j2 in line_opcodes(old_lines, new_lines):
        if tag == "equal":
            kept.update(zip(range(i1, i2), range(j1, j2), strict=True))
    return all(pair in kept for pair in context)


def _pieces(
    old_lines: Sequence[str], new_lines: Sequence[str], groups: list[Group]
) -> list[Group] | None:
    """The chunk cut into pieces, each a run of changes with the context lines
    before it. A first run of added lines only, and the last run, also take
    the context lines after them that equal none of their lines (a diff
    cannot pair those with another). None when a first run of added lines
    has no such line after it (no cut places it)."""
    pieces: list[Group] = []
    i0 = j0 = 0
    for index, (i1, i2, j1, j2) in enumerate(groups):
        extend = 0
        if i0 == i2 or index == len(groups) - 1:
            limit = groups[index + 1][0] if index + 1 < len(groups) else len(old_lines)
            changed = {*old_lines[i1:i2], *new_lines[j1:j2]}
            while i2 + extend < limit and old_lines[i2 + extend] not in changed:
                extend += 1
            if i0 == i2 and not extend:
                return None
        pieces.append((i0, i2 + extend, j0, j2 + extend))
        i0, j0 = i2 + extend, j2 + extend
    return pieces


def _line_starts(doc: Document, match: Match, count: int) -> list[int]:
    """Where each of the ``count`` lines from ``match.start`` starts in the view."""
    starts = [match.start]
    view = doc.view
    for _ in range(count - 1):
        starts.append(view.index("\n", starts[-1]) + 1)
    return starts
