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

The write side is the edit engine's: file line endings, BOM, final newline,
context lines byte for byte, drift undone in the new lines.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, NoReturn

from .. import applied, elision, explain, indentation, matcher, punctuation, report
from ..document import Document
from ..errors import AlreadyApplied, Ambiguous, InvalidRequest, NotFound, Placeholder
from ..escapes import unescape
from ..matcher import Level, Match, Scope
from ..replacement import Replacement, build
from . import messages
from .model import ADDED, Chunk


@dataclass(frozen=True)
class UpdatedText:
    text: str
    diff: str
    level: Level


class Where(NamedTuple):
    """Which chunk of which file, for messages (a tuple: one is made per chunk)."""

    path: str
    number: int  # of the chunk, from 1
    of: int  # chunks in the update
    chunk: Chunk

    def format(self, template: str, **fields: object) -> str:
        anchored = f" (under '@@ {self.chunk.anchors[-1]}')" if self.chunk.anchors else ""
        return template.format(
            path=self.path, index=self.number, count=self.of, anchored=anchored, **fields
        )


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
        level = max(level, found_level)
        if found_old != found_new:
            replacements.append(build(doc, [match], found_old, found_new, path))
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


def repeats_anchor(chunk: Chunk) -> bool:
    """Whether the chunk's first old line is its last ``@@`` line's text."""
    anchor = chunk.anchors[-1]
    first = next(text for marker, text in chunk.lines if marker != ADDED)
    if anchor.isascii() and first.isascii():
        key, first = anchor.strip(), first.strip()  # nothing to fold
    else:
        key, first = punctuation.fold(anchor).strip(), punctuation.fold(first).strip()
    return bool(key) and (
        first == key or (first.startswith(key) and _word_ends(key, first[len(key) :]))
    )


def after_anchors(
    doc: Document, chunk: Chunk, start: int, where: Where
) -> tuple[int, int | None, int | None]:
    """Where the chunk's search starts (after its last anchor), its block's last
    start, and the start of the last anchor's line (None without anchors)."""
    block_last = None
    line_start = None
    for anchor in chunk.anchors:
        line = _find_anchor(doc, anchor, start)
        if line is None:
            after = f" after line {doc.line_number(start) - 1}" if start else ""
            raise NotFound(
                where.format(messages.ANCHOR_NOT_FOUND, anchor=anchor, after=after), path=where.path
            )
        line_start, line_end = line
        start = min(line_end + 1, len(doc.view))
        block_last = _block_last(doc, line_start, start)
    return start, block_last, line_start


def _find_anchor(doc: Document, anchor: str, start: int) -> tuple[int, int] | None:
    """The first line at or after ``start`` that is the anchor (else that begins with it).

    "Begins with" stops at a word boundary: ``def foo`` is not ``def foobar()``.
    Typographic look-alikes are folded when nothing matches as written.
    """
    key = anchor.strip()
    found = _anchor_line(doc.view, key, start)
    if found is None and not (doc.is_ascii and key.isascii()):
        found = _anchor_line_folded(doc, punctuation.fold(key).strip(), start)
    return found


def _anchor_line(view: str, key: str, start: int) -> tuple[int, int] | None:
    beginning = None
    pos = view.find(key, start)
    while pos >= 0:
        line_start = view.rfind("\n", 0, pos) + 1
        line_end = view.find("\n", pos)
        line_end = len(view) if line_end < 0 else line_end
        if not view[line_start:pos].strip():
            rest = view[pos + len(key) : line_end]
            if not rest.strip():
                return line_start, line_end
            if beginning is None and _word_ends(key, rest):
                beginning = line_start, line_end
        pos = view.find(key, line_end)
    return beginning


def _anchor_line_folded(doc: Document, key: str, start: int) -> tuple[int, int] | None:
    beginning = None
    line_start = start
    while line_start < len(doc.view):
        line_end = doc.line_end(line_start)
        text = punctuation.fold(doc.view[line_start:line_end]).strip()
        if text == key:
            return line_start, line_end
        if beginning is None and text.startswith(key) and _word_ends(key, text[len(key) :]):
            beginning = line_start, line_end
        line_start = line_end + 1
    return beginning


def _word_ends(key: str, rest: str) -> bool:
    """Whether ``key`` followed by ``rest`` does not cut a word in two."""
    return not (rest[:1].isalnum() or rest[:1] == "_") or not (
        key[-1:].isalnum() or key[-1:] == "_"
    )


def _block_last(doc: Document, anchor_start: int, body_start: int) -> int | None:
    """The last offset where a line of the block the anchor line opens starts.

    The block is the lines after the anchor that are blank or indented
    deeper than it; None when the next line is not deeper (no block).
    """
    view = doc.view
    width = indentation.columns(view[anchor_start:body_start])
    block = view[body_start : _block_end(view, body_start, width + 1)].rstrip()
    # The start of the block's last non-blank line.
    return view.rfind("\n", 0, body_start + len(block)) + 1 if block else None


def _block_end(view: str, pos: int, width: int) -> int:
    """``indentation.block_end``: the start of the first non-blank line from the
    line start ``pos`` on indented less than ``width`` columns (else the end).

    Only the lines a regular expression finds not starting with ``width``
    spaces are looked at one by one (a tab may still make them deep enough).
    """
    shallow = _shallow_line(width)
    found = shallow.search(view, pos)
    while found is not None:
        start = found.start()
        if "\t" not in view[start : start + width]:
            return start  # fewer than ``width`` spaces, then text
        end = view.find("\n", start)
        end = len(view) if end < 0 else end
        if indentation.columns(view[start:end]) < width:
            return start
        found = shallow.search(view, end + 1)
    return len(view)


@functools.cache
def _shallow_line(width: int) -> re.Pattern[str]:
    """A line (from its start) that does not start with ``width`` spaces and is
    not blank (``\\S`` is what ``str.strip`` keeps)."""
    return re.compile(rf"^(?! {{{width}}})(?=.*\S)", re.MULTILINE)


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
