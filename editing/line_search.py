"""The matcher's search for a multi-line old text as whole lines, in passes 1 to 3.

Each quoted line and each file line is read through the level's key
(trailing blanks dropped; then indentation too; then typographic
look-alikes folded). The search looks for the longest key of the quoted
text with ``str.find`` and checks the neighbouring lines around each hit
(``_windows``), so its cost stays close to one ``str.find`` over the file;
from pass 2 on a match also needs one ``IndentMap`` that explains every
line's indentation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from . import indentation, punctuation
from .document import Document
from .matches import Level, Match

_KEYS: dict[Level, Callable[[str], str]] = {
    Level.TRAILING_WHITESPACE: str.rstrip,
    # Only spaces and tabs are indentation; odd spaces there are punctuation drift.
    Level.INDENTATION: lambda line: line.lstrip(" \t").rstrip(),
    Level.PUNCTUATION: lambda line: punctuation.fold(line).strip(),
}


def find_lines(
    doc: Document, old: str, level: Level, first: int, last: int | None
) -> Iterator[Match]:
    old_lines = old.split("\n")
    ends_with_newline = old_lines[-1] == ""
    if ends_with_newline:
        old_lines.pop()
    key = _KEYS[level]
    keys = [key(line) for line in old_lines]
    anchor_at = max(range(len(keys)), key=lambda i: len(keys[i]))
    anchor = keys[anchor_at]
    if not anchor:
        return
    if level == Level.PUNCTUATION and doc.is_ascii and old.isascii():
        return
    folded = level == Level.PUNCTUATION and not doc.is_ascii
    text = doc.folded if folded else doc.view
    # The folded text's offsets are not the view's: it is searched whole.
    begin, stop = (0, None) if folded else (first, _anchor_bound(text, last, anchor_at))
    windows = _windows(
        text,
        anchor,
        anchor_at,
        keys,
        key,
        count_lines=folded,
        begin=begin,
        stop=stop,
        # A line whose text without trailing blanks is the anchor starts with it.
        at_line_start=level == Level.TRAILING_WHITESPACE,
    )
    for line_index, found_spans in windows:
        spans = _view_spans(doc, line_index, len(found_spans)) if folded else found_spans
        indent = None
        if level >= Level.INDENTATION:
            pairs = _indent_pairs(doc, old_lines, spans, loose=level == Level.PUNCTUATION)
            indent = indentation.infer(pairs) if pairs is not None else None
            if indent is None:
                continue
        start, end = spans[0][0], spans[-1][1]
        if last is not None and start > last:
            return
        if start < first:
            continue
        ends_line = ends_with_newline and end < len(doc.view)
        yield Match(start, end + ends_line, level, indent, ends_line=ends_line)


def _anchor_bound(text: str, last: int | None, anchor_at: int) -> int | None:
    """Where the anchor line of a window starting at or before ``last`` ends at the latest."""
    if last is None:
        return None
    end = text.find("\n", min(last, len(text)))
    for _ in range(anchor_at):
        if end < 0:
            break
        end = text.find("\n", end + 1)
    return len(text) if end < 0 else end


def _indent_pairs(
    doc: Document, old_lines: list[str], spans: list[tuple[int, int]], *, loose: bool
) -> list[tuple[str, str]] | None:
    """``(model indent, file indent)`` of each non-blank quoted line.

    ``loose`` reads odd spaces in the model's indentation as spaces; then a
    file indented with odd spaces itself gives None (there is no telling
    what its new lines should be indented with).
    """
    pairs = []
    for model, (s, e) in zip(old_lines, spans, strict=True):
        if not model.strip():
            continue
        file_line = doc.view[s:e]
        file_lead = indentation.leading(file_line)
        if not loose:
            pairs.append((indentation.leading(model), file_lead))
            continue
        if indentation.raw_leading(file_line) != file_lead:
            return None
        pairs.append((indentation.model_leading(model)[0], file_lead))
    return pairs


def _windows(
    text: str,
    anchor: str,
    anchor_at: int,
    keys: list[str],
    key: Callable[[str], str],
    *,
    count_lines: bool,
    begin: int = 0,
    stop: int | None = None,
    at_line_start: bool = False,
) -> Iterator[tuple[int, list[tuple[int, int]]]]:
    """Runs of consecutive lines of ``text`` whose keys are ``keys``.

    Yields each line's ``(start, end)`` and, with ``count_lines``, the index
    of the run's first line (-1 otherwise). Only anchor lines starting at or
    after ``begin`` and ending by ``stop`` are looked at; with ``at_line_start``
    only anchors that start their line.
    """
    # A final newline ends the last line; it does not start another one.
    limit = len(text) - 1 if text.endswith("\n") else len(text)
    stop = len(text) if stop is None else stop
    line_index = 0
    counted_to = 0
    pos = _next_anchor(text, anchor, begin, stop, at_line_start)
    while 0 <= pos <= limit:
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        if key(text[start:end]) == anchor:
            spans = _walk(text, (start, end), anchor_at, len(keys), limit)
            if spans and all(key(text[s:e]) == k for (s, e), k in zip(spans, keys, strict=True)):
                if not count_lines:
                    yield -1, spans
                else:
                    line_index += text.count("\n", counted_to, start)
                    counted_to = start
                    yield line_index - anchor_at, spans
        pos = _next_anchor(text, anchor, end + 1, stop, at_line_start)


def _next_anchor(text: str, anchor: str, start: int, stop: int, at_line_start: bool) -> int:
    """The next occurrence of ``anchor`` in ``text[start:stop]`` (at a line start if asked)."""
    if not at_line_start:
        return text.find(anchor, start, stop)
    if start == 0 and text.startswith(anchor) and len(anchor) <= stop:
        return 0
    found = text.find("\n" + anchor, max(start - 1, 0), stop)
    return found + 1 if found >= 0 else -1


def _walk(
    text: str, line: tuple[int, int], before: int, count: int, limit: int
) -> list[tuple[int, int]] | None:
    """Spans of ``count`` lines around the line span ``line``, which is number ``before``."""
    start, end = line
    spans = [line]
    s = start
    for _ in range(before):
        if s == 0:
            return None
        e = s - 1
        s = text.rfind("\n", 0, e) + 1
        spans.append((s, e))
    spans.reverse()
    e = end
    for _ in range(count - before - 1):
        if e >= limit:
            return None
        s = e + 1
        e = text.find("\n", s)
        e = len(text) if e < 0 else e
        spans.append((s, e))
    return spans


def _view_spans(doc: Document, first: int, count: int) -> list[tuple[int, int]]:
    starts = doc.line_starts
    spans = []
    for index in range(first, first + count):
        start = starts[index]
        end = starts[index + 1] - 1 if index + 1 < len(starts) else len(doc.view)
        spans.append((start, end))
    return spans
