"""A file's text as the matcher sees it, and the way back to the file's bytes.

Matching works on a *view*: the text without its byte-order mark and with
every CRLF turned into LF, so that a model's LF text finds a CRLF file. The
document remembers which view newlines were CRLF, so a replacement can be
written back in the file's own terms (BOM kept, each line's ending kept).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import cached_property

from .punctuation import fold

BOM = "\ufeff"


# Up to this many parts after the head are written by one format; more are joined.
_FORMATTED_PARTS = 16


@dataclass(frozen=True)
class Line:
    """One line of the view: ``text`` has no newline; ``eol`` is the file's own ending."""

    text: str
    eol: str


@dataclass(frozen=True, eq=False)
class Document:
    original: str
    bom: str = field(init=False)
    view: str = field(init=False)

    def __post_init__(self) -> None:
        bom = BOM if self.original.startswith(BOM) else ""
        body = self.original[len(bom) :]
        object.__setattr__(self, "bom", bom)
        object.__setattr__(self, "view", body.replace("\r\n", "\n") if "\r" in body else body)

    # -- line endings -------------------------------------------------------

    @cached_property
    def _crlf_count(self) -> int:
        # Counting a two-character needle is slow; most files have no CR at all.
        return self.original.count("\r\n") if "\r" in self.original else 0

    @property
    def has_crlf(self) -> bool:
        """Whether any line of the file ends with CRLF."""
        return self._crlf_count > 0

    @cached_property
    def _crlf_positions(self) -> list[int]:
        """View offsets of the newlines that were CRLF (only built for mixed files)."""
        positions = []
        for k, match in enumerate(re.finditer("\r\n", self.original)):
            positions.append(match.start() - len(self.bom) - k)
        return positions

    @cached_property
    def all_crlf(self) -> bool:
        """Whether every line of the file ends with CRLF (and there is one)."""
        return self._crlf_count > 0 and self._crlf_count == self.view.count("\n")

    @cached_property
    def eol(self) -> str:
        """The ending new lines take when nothing nearer says otherwise."""
        newlines = self.view.count("\n")
        return "\r\n" if self._crlf_count * 2 > newlines else "\n"

    def _crlf_before(self, offset: int) -> int:
        if self._crlf_count == 0:
            return 0
        if self.all_crlf:
            return self.view.count("\n", 0, offset)
        return bisect.bisect_left(self._crlf_positions, offset)

    def original_offset(self, offset: int) -> int:
        """Map a view offset to an offset in ``original``."""
        return offset + len(self.bom) + self._crlf_before(offset)

    def original_line_start(self, offset: int) -> int:
        """Where the line holding view ``offset`` starts in ``original`` (the first
        line at 0: its byte-order mark is part of it)."""
        start = self.line_start(offset)
        return self.original_offset(start) if start else 0

    def eol_at(self, newline_offset: int) -> str:
        """The file's ending for the view newline at ``newline_offset``."""
        if self._crlf_count == 0:
            return "\n"
        if self.all_crlf:
            return "\r\n"
        i = bisect.bisect_left(self._crlf_positions, newline_offset)
        crlf = i < len(self._crlf_positions) and self._crlf_positions[i] == newline_offset
        return "\r\n" if crlf else "\n"

    # -- lines --------------------------------------------------------------

    def line_start(self, offset: int) -> int:
        return self.view.rfind("\n", 0, offset) + 1

    def starts_line(self, offset: int) -> bool:
        """Whether only blanks come before ``offset`` on its line."""
        return not self.view[self.line_start(offset) : offset].strip()

    def line_end(self, offset: int) -> int:
        """Offset of the newline ending the line at ``offset`` (or the end of the view)."""
        end = self.view.find("\n", offset)
        return len(self.view) if end < 0 else end

    def line_number(self, offset: int) -> int:
        """1-based number of the line holding ``offset``."""
        return self.view.count("\n", 0, offset) + 1

    def whole_lines(self, start: int, end: int, *, ends_line: bool) -> tuple[int, int]:
        """The span of the whole lines holding ``view[start:end]``.

        It ends after the last line's newline when ``ends_line`` (the text
        included it), else at the end of that line's text.
        """
        return self.line_start(start), end if ends_line else self.line_end(end)

    def lines_between(self, start: int, end: int, *, ends_line: bool) -> list[Line]:
        """The lines of the whole-line span ``view[start:end]``, with their endings.

        ``ends_line`` says whether the span ends after a newline; otherwise its
        last line (possibly empty) has no ending.
        """
        parts = self.view[start:end].split("\n")
        if ends_line:
            parts.pop()
        if not self.has_crlf:
            # Every ending is LF: no offsets to look up.
            lines = [Line(part, "\n") for part in parts]
            if lines and not ends_line:
                lines[-1] = Line(parts[-1], "")
            return lines
        lines = []
        pos = start
        for index, part in enumerate(parts):
            pos += len(part)
            has_eol = ends_line or index < len(parts) - 1
            lines.append(Line(part, self.eol_at(pos) if has_eol else ""))
            pos += 1
        return lines

    @cached_property
    def line_starts(self) -> list[int]:
        """View offset of every line start (built only by the slower passes)."""
        starts = [0]
        find = self.view.find
        pos = find("\n")
        while pos >= 0:
            starts.append(pos + 1)
            pos = find("\n", pos + 1)
        return starts

    @cached_property
    def is_ascii(self) -> bool:
        return self.view.isascii()

    @cached_property
    def folded(self) -> str:
        """The view with typographic look-alikes folded to ASCII (same lines)."""
        return fold(self.view)

    def replace(self, replacements: list[tuple[int, int, str]]) -> str:
        """Apply non-overlapping ``(view_start, view_end, text)`` replacements.

        ``text`` is already in the file's terms (endings included). Returns the
        new original text, BOM kept.

        The text before the first replacement is written into the result
        straight from the original (``%.*s`` reads that many characters of
        it), not sliced out first: in a long file that is most of it, and a
        slice would be a second copy of it, as large as the result. (A short
        head among many replacements is sliced: then the join is faster.)
        ``str.format``'s precision does the same more than ten times slower.
        """
        head = None
        parts: list[str] = []
        cursor = 0
        for start, end, text in sorted(replacements):
            o_start, o_end = self.original_offset(start), self.original_offset(end)
            if head is None:
                head = o_start
            else:
                parts.append(self.original[cursor:o_start])
            parts.append(text)
            cursor = o_end
        if head is None:
            return self.original
        parts.append(self.original[cursor:])
        if len(parts) <= _FORMATTED_PARTS:
            return ("%.*s" + "%s" * len(parts)) % (head, self.original, *parts)
        if 2 * head >= len(self.original):
            # Many parts after a long head: they are joined first (a format
            # of thousands of fields is slower than a join of them).
            return "%.*s%s" % (head, self.original, "".join(parts))  # noqa: UP031 (as above)
        return "".join([self.original[:head], *parts])
