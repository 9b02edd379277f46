"""The common update, applied in one pass: every chunk found exactly, once.

Most patches quote the file as it is: each chunk's context and ``-`` lines
are whole lines of an LF file, found once at the strictest level. Then the
general write (``replacement.build``) comes down to splicing the chunk's
``+`` lines in, and its report to one unified diff of the file with those
splices, so both are computed here directly, from the chunks, without a
record per chunk for the report to read back.

``apply_plain`` gives the very result ``chunks.apply_chunks`` gives, or None
when the update is not that simple (drift, a refusal, an insertion, CRLF
endings, a placeholder, repeated lines that a diff of the chunk's old and
new lines would not keep where the chunk marks them): the caller then takes the general path, which
decides everything again from the start. Tests compare the two on generated
patches.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .. import applied, elision, exact_search, matcher
from ..document import Document
from ..errors import EditError
from ..line_diff import Opcode, line_opcodes, merged
from ..matcher import Scope
from ..matches import Level, Located, Match
from .anchors import after_anchors, repeats_anchor
from .chunks import UpdatedText, at_anchor
from .messages import Where
from .model import Chunk
from .placement import keeps_context, marked_groups
from .unified import Splice, unified_diff


def apply_plain(
    doc: Document, chunks: Sequence[Chunk], path: str, new_path: str | None = None
) -> UpdatedText | None:
    """The update's result when every chunk is a plain splice, else None."""
    if doc.has_crlf or not _plain_lines(chunks):
        return None
    try:
        splices = _splices(doc, chunks, path)
    except EditError:
        return None  # the general path gives the refusal
    if splices is None:
        return None
    new_text = doc.replace([(s.start, s.end, s.text) for s in splices])
    return UpdatedText(
        new_text, unified_diff(doc.view, splices, path, new_path or path), Level.EXACT
    )


def _plain_lines(chunks: Sequence[Chunk]) -> bool:
    """Whether no chunk adds an elision line or a line ending in CR (read back
    as a line ending, the report would see another line)."""
    added = [text for chunk in chunks for marker, text in chunk.lines if marker == "+"]
    if any(text.endswith("\r") for text in added):
        return False
    return not elision.markers("\n".join(added))


def _splices(doc: Document, chunks: Sequence[Chunk], path: str) -> list[Splice] | None:
    """Each changing chunk's splice, in file order, or None at the first chunk
    the general path must decide (it raises the refusals found here itself)."""
    splices: list[Splice] = []
    cursor = 0
    line = 0  # 0-based number of the line at ``counted_to``
    counted_to = 0
    view = doc.view
    count = len(chunks)
    for index, chunk in enumerate(chunks, 1):
        marked = chunk.lines
        old_lines = [text for marker, text in marked if marker != "+"]
        if not old_lines:
            return None  # an insertion
        where = Where(path, index, count, chunk)
        first, block_last, anchor_line = after_anchors(doc, chunk, cursor, where)
        new_lines = [text for marker, text in marked if marker != "-"]
        old = "\n".join(old_lines) + "\n"
        if anchor_line is not None and repeats_anchor(chunk, old_lines[0]):
            span = _at_anchor(doc, old, chunk, (first, block_last, anchor_line), where)
        elif block_last is not None and not chunk.end_of_file:
            span = _one(exact_search.exact_line_spans(view, old, first, block_last))
        else:
            span = _one(exact_search.exact_line_spans(view, old, first, at_end=chunk.end_of_file))
        if span is None or not span[2]:
            return None  # not found exactly once, or on the last line, which has no newline
        start, cursor = span[0], span[1]
        if old_lines == new_lines:
            continue
        if not keeps_context(old_lines, new_lines, marked_groups(chunk)[0]):
            return None  # repeated lines a diff would move: placed by position there
        new = "\n".join(new_lines) + "\n" if new_lines else ""
        if applied.could_be_inside(old, new, Level.EXACT):
            match = Match(start, cursor, Level.EXACT, None, False, True)
            if applied.inside_new(doc, Located(Level.EXACT, (match,), old, total=1), new):
                return None  # already applied: the general path refuses
        line += view.count("\n", counted_to, start)
        counted_to = start
        written, opcodes = _written(old_lines, new_lines)
        text = "\n".join(written) + "\n" if written else ""
        splices.append(Splice(start, cursor, line, old_lines, written, text, opcodes))
    return splices


Span = tuple[int, int, bool]  # start, end, ends_line


def _one(spans: Iterator[Span]) -> Span | None:
    """The only exact match, or None: none at this level (the general path
    tries the others) or more than one (ambiguous)."""
    found = next(spans, None)
    return found if found is not None and next(spans, None) is None else None


def _at_anchor(
    doc: Document,
    old: str,
    chunk: Chunk,
    after: tuple[int, int | None, int],
    where: Where,
) -> Span | None:
    """The chunk's one exact match when its first line repeats its anchor's,
    found as the general path finds it."""
    first, block_last, anchor_line = after
    scopes = [Scope(first, None, whole_lines=True, at_end=chunk.end_of_file)]
    if block_last is not None and not chunk.end_of_file:
        scopes.insert(0, Scope(first, block_last, whole_lines=True))
    for scope in at_anchor(doc, old, anchor_line, scopes, where):
        located = matcher.locate(doc, old, scope, limit=2, count=False)
        if located:
            if len(located.matches) > 1 or located.level != Level.EXACT or located.escapes:
                return None
            match = located.matches[0]
            return match.start, match.end, match.ends_line
    return None


def _written(old_lines: list[str], new_lines: list[str]) -> tuple[list[str], list[Opcode]]:
    """The lines a plain splice writes (changed blank lines emptied) and the
    line diff the report gives them (old lines -> written lines)."""
    opcodes = line_opcodes(old_lines, new_lines)
    if not any(text.isspace() for text in new_lines):
        return new_lines, _aligned(old_lines, new_lines, opcodes, new_lines)  # none to empty
    written: list[str] = []
    for tag, _i1, _i2, j1, j2 in opcodes:
        if tag == "equal":
            written += new_lines[j1:j2]
        else:
            written += [text if text.strip() else "" for text in new_lines[j1:j2]]
    return written, _aligned(old_lines, written, opcodes, new_lines)


def _aligned(
    old_lines: list[str], written: list[str], opcodes: list[Opcode], model: list[str]
) -> list[Opcode]:
    """The report's diff of a splice: the one it was written from (``model``'s
    lines against old's), its changed lines compared again as written (a
    blank line emptied may be old's own)."""
    if len(old_lines) == 1 == len(written):
        return line_opcodes(old_lines, written)
    if not opcodes or opcodes[-1][2] != len(old_lines) or opcodes[-1][4] != len(written):
        return line_opcodes(old_lines, written)
    aligned: list[Opcode] = []
    same = True  # every piece compared again gave itself back
    for op in opcodes:
        tag, i1, i2, j1, j2 = op
        if tag == "equal":
            # The model's own lines are equal where their diff says so.
            if written is not model and old_lines[i1:i2] != written[j1:j2]:
                return line_opcodes(old_lines, written)
            aligned.append(op)
        elif i1 == i2 or j1 == j2:
            aligned.append(op)  # what a diff of lines against none gives
        elif i2 - i1 == 1 == j2 - j1:
            again: Opcode = (
                ("equal" if old_lines[i1] == written[j1] else "replace"),
                i1,
                i2,
                j1,
                j2,
            )
            same = same and again == op
            aligned.append(again)
        else:
            same = False
            for t, a1, a2, b1, b2 in line_opcodes(old_lines[i1:i2], written[j1:j2]):
                aligned.append((t, a1 + i1, a2 + i1, b1 + j1, b2 + j1))
    return opcodes if same else merged(aligned)
