"""Apply the chunks of one ``*** Update File`` to that file's text.

Chunks are located in file order with the edit engine's ladder (so a patch
never behaves worse than an edit), each after the previous one:

- each ``@@`` anchor is the first line at or after the search start whose
  text is the anchor (then: that starts with it), compared stripped and with
  typographic look-alikes folded; the chunk is then looked for after the
  last anchor, first inside the block the anchor opens (the lines indented
  deeper than it), then in the rest of the file;
- the chunk's context and ``-`` lines must match whole lines exactly once
  in that region, or the chunk is ambiguous;
- an ``*** End of File`` chunk matches only at the end of the file;
- a chunk of ``+`` lines only goes right after its anchor (or at the end of
  the file for an ``End of File`` chunk), never anywhere by default.

Lines are placed by their position in the chunk: a context line keeps the
file line it stands for, a ``-`` line removes its own file line. A diff of
the chunk's old and new lines would do the same unless lines repeat (blank
lines, twin lines); those can differ in bytes the match ignores (a CRLF,
trailing blanks), and the diff could keep the one the chunk removes.

The write side is the edit engine's: file line endings, BOM, final newline,
context lines byte for byte, drift undone in the new lines.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn

from .. import applied, elision, explain, indentation, matcher, report
from ..document import Document, Line
from ..errors import AlreadyApplied, Ambiguous, InvalidRequest, NotFound, Placeholder
from ..escapes import unescape
from ..line_diff import Opcode, line_opcodes
from ..matcher import Level, Match, Scope
from ..replacement import Replacement, build
from . import messages
from .anchors import after_anchors, repeats_anchor
from .messages import Where
from .model import ADDED, CONTEXT, REMOVED, Chunk


@dataclass(frozen=True)
class UpdatedText:
    text: str
    diff: str
    level: Level


def apply_chunks(
    text: str, chunks: Sequence[Chunk], path: str, new_path: str | None = None
) -> UpdatedText:
    """The file's new text, or a refusal naming the chunk that failed."""
    doc = Document(text)
    cursor = 0
    replacements: list[Replacement] = []
    level = Level.EXACT
    for index, chunk in enumerate(chunks, 1):
        where = Where(path, index, len(chunks), chunk)
        first, block_last, anchor_line = after_anchors(doc, chunk, cursor, where)
        old = "".join(line + "\n" for line in chunk.old_lines)
        new = "".join(line + "\n" for line in chunk.new_lines)
        unpaired = elision.unpaired(old, new)
        if unpaired:
            raise Placeholder(where.format(messages.CHUNK_PLACEHOLDER, line=unpaired[0]), path=path)
        if not chunk.old_lines:
            replacements.append(_insertion(doc, chunk, first, new, where))
            cursor = first
            continue
        scopes = [Scope(first, None, whole_lines=True, at_end=chunk.end_of_file)]
        if block_last is not None and not chunk.end_of_file:
            scopes.insert(0, Scope(first, block_last, whole_lines=True))
        if anchor_line is not None and repeats_anchor(chunk):
            scopes = at_anchor(doc, old, anchor_line, scopes, where)
        match, found_old, found_new, found_level = _locate(doc, old, new, scopes, where)
        # Found as a whole, the chunk's bare "..." lines are the file's text, no elision.
        unpaired = elision.unpaired(found_old, found_new, dots_are_content=True)
        if unpaired:
            raise Placeholder(where.format(messages.CHUNK_PLACEHOLDER, line=unpaired[0]), path=path)
        level = max(level, found_level)
        if found_old != found_new:
            replacements += by_position(doc, match, chunk, (found_old, found_new), path)
        cursor = match.end
    new_text = doc.replace([(r.start, r.end, r.text) for r in replacements])
    description = report.describe(doc, replacements, path, new_path)
    return UpdatedText(new_text, description.diff, level)


def _locate(
    doc: Document, old: str, new: str, scopes: list[Scope], where: Where
) -> tuple[Match, str, str, Level]:
    """The one match of the chunk's old lines in the first scope that has any.

    Returns it with old and new as the match read them (unescaped if needed).
    """
    located = None
    for scope in scopes:
        # Two matches are enough to know the chunk is ambiguous; the refusal counts them.
        located = matcher.locate(doc, old, scope, limit=2, count=False)
        if located:
            break
    if located is None:
        copy = applied.copy_of_new(doc, old, new, scopes[-1])
        if copy is not None:
            _raise_applied(doc, copy, where)
        head = where.format(messages.CHUNK_NOT_FOUND)
        message, line = explain.not_found(
            doc, old, where.path, head=head, retry=messages.CHUNK_RETRY, label="patch"
        )
        raise NotFound(message, path=where.path, line=line)
    if len(located.matches) > 1:
        located = matcher.locate(doc, old, scope, limit=explain.LISTED) or located
        lines = explain.lines_of(doc, located.matches[: explain.LISTED])
        raise Ambiguous(
            where.format(messages.CHUNK_AMBIGUOUS, n=located.count, lines=lines),
            path=where.path,
            line=doc.line_number(located.matches[0].start),
        )
    new = unescape(new, located.escapes) if located.escapes else new
    inside = applied.inside_new(doc, located, new) if located.old != new else {}
    if inside:
        _raise_applied(doc, inside[located.matches[0]], where)
    return located.matches[0], located.old, new, located.reported_level


def _raise_applied(doc: Document, copy: Match, where: Where) -> NoReturn:
    """Refuse a chunk whose new lines are already in the file, at ``copy``."""
    raise AlreadyApplied(
        where.format(messages.CHUNK_APPLIED, where=explain.lines_of(doc, [copy])),
        path=where.path,
        line=doc.line_number(copy.start),
    )


def at_anchor(
    doc: Document, old: str, anchor_line: int, scopes: list[Scope], where: Where
) -> list[Scope]:
    """The scopes for a chunk whose first line is its anchor's text.

    The chunk starts on the anchor's line when it matches there. When it also
    matches after the anchor (as "after its anchor" would read it), which one
    is meant is unclear: ambiguous.
    """
    chunk = where.chunk
    here = Scope(anchor_line, anchor_line, whole_lines=True, at_end=chunk.end_of_file)
    on_anchor = matcher.locate(doc, old, here)
    if on_anchor is None:
        return scopes
    later = next(
        (
            found
            for s in scopes
            if (found := matcher.locate(doc, old, s, explain.LISTED, count=False))
        ),
        None,
    )
    if later is not None:
        matches = [*on_anchor.matches, *later.matches][: explain.LISTED]
        raise Ambiguous(
            where.format(
                messages.CHUNK_AMBIGUOUS, n=len(matches), lines=explain.lines_of(doc, matches)
            ),
            path=where.path,
            line=doc.line_number(anchor_line),
        )
    return [here]


def _insertion(doc: Document, chunk: Chunk, at: int, new: str, where: Where) -> Replacement:
    """A chunk of ``+`` lines only: after its anchor, or at the end of the file."""
    if chunk.end_of_file:
        at = len(doc.view)
    elif not chunk.anchors:
        raise InvalidRequest(where.format(messages.PURE_ADDITION), path=where.path)
    located = matcher.locate(doc, new, Scope(at, at, whole_lines=True))
    if located is not None:
        _raise_applied(doc, located.matches[0], where)
    text = new.replace("\n", doc.eol)
    if at == len(doc.view) and doc.view and not doc.view.endswith("\n"):
        # After a last line without a newline: end that line, keep none at the end.
        text = doc.eol + text.removesuffix(doc.eol)
    return Replacement(at, at, text)


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
