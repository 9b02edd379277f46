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

A located chunk's lines are placed by their position in the chunk, not by
a diff of their text (``placement``).

The write side is the edit engine's: file line endings, BOM, final newline,
context lines byte for byte, drift undone in the new lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn

from .. import applied, elision, explain, matcher, report
from ..document import Document
from ..errors import AlreadyApplied, Ambiguous, InvalidRequest, NotFound, Placeholder
from ..escapes import unescape
from ..matcher import Scope
from ..matches import Level, Match
from ..replacement import Replacement
from . import messages
from .anchors import after_anchors, repeats_anchor
from .messages import Where
from .model import Chunk
from .placement import by_position


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
