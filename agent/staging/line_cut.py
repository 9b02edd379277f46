"""The lines two texts share at their ends, cut off before they are compared.

A one-line edit of a megabyte file should cost a few lines of work, not a
split and a diff of 20,000: ``Cut`` finds the whole lines ``before`` and
``after`` share at their head and tail (compared in C, a block at a time)
and hands ``hunks.line_regions`` the middles, keeping in them every line
the engine's records name. ``diff_middles`` gives the line differences the
whole texts' lines would give (``line_opcodes`` matches the shared ends
first anyway, but for one decision made on the whole texts, which it makes
here on them). Lines end at ``"\\n"`` only (``split_lines``). Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import ne

from editing.line_diff import WHOLE, line_opcodes


def split_lines(text: str) -> list[str]:
    """``text``'s lines with their endings; only ``"\\n"`` ends a line.

    ``str.split`` and one concatenation per line: four times quicker on a
    megabyte of code than a split at a zero-width match after each line break."""
    lines = [line + "\n" for line in text.split("\n")]
    last = lines.pop()  # what followed the last line break, given one too many
    if last != "\n":
        lines.append(last[:-1])
    return lines


@dataclass(frozen=True)
class Cut:
    """Two texts less the whole lines they share at their head and at their tail.

    Their middles start at ``start`` (a line start of both, ``lines`` lines
    in), and both end in the same ``tail`` characters (from a line start of
    both). The lines the engine's spans name stay in the middles, so that its
    records read as they do on the whole texts.
    """

    before: str
    after: str
    start: int
    lines: int
    tail: int

    @property
    def old(self) -> str:
        return self.before[self.start : len(self.before) - self.tail]

    @property
    def new(self) -> str:
        return self.after[self.start : len(self.after) - self.tail]

    @classmethod
    def of(
        cls,
        before: str,
        after: str,
        spans: Sequence[tuple[int, int]],
        written: Sequence[tuple[int, int]],
        anchor: tuple[int, int] | None = None,
    ) -> Cut:
        """The cut of ``before`` and ``after`` whose middles hold every line of
        ``spans`` (of ``before``) and ``written`` (of ``after``). ``anchor``: a
        line of ``before`` and the offset it starts at, from which the lines up to
        the cut are counted (from the start without one, or if it is no line start)."""
        named = [line for span in [*spans, *written] for line in span]
        if any(line < 0 for line in named):
            return cls(before, after, 0, 0, 0)  # a negative line indexes from the end: keep all
        start, tail = _shared_lines(before, after)
        lines = _line_of(before, start, anchor)
        top = min(named, default=lines)
        if top < lines:
            start, lines = _line_start(before, (start, lines), top), top
        cut = cls(before, after, start, lines, tail)
        if not tail:
            return cut
        # A middle before a tail ends a line: its lines are its line feeds.
        short = max(
            max((max(span) - lines - cut.old.count("\n") for span in spans), default=0),
            max((max(span) - lines - cut.new.count("\n") for span in written), default=0),
        )
        if short > 0:
            at = lines_on(before, len(before) - tail, short)
            cut = cls(before, after, start, lines, len(before) - at)
        return cut

    def tail_lines(self) -> int:
        """How many lines the shared tail holds."""
        if not self.tail:
            return 0
        unended = not self.before.endswith("\n")  # its last line, without a line feed
        return self.before.count("\n", len(self.before) - self.tail) + unended

    def shared(self, lines: set[str]) -> str | None:
        """One of ``lines`` that is a line of the shared head or tail, or None.

        A few are looked for in the text; more against a set of those lines."""
        if len(lines) <= 4:
            return next((line for line in lines if self._holds(line)), None)
        tail = self.before[len(self.before) - self.tail :]
        held = {*split_lines(self.before[: self.start]), *split_lines(tail)}
        return next((line for line in lines if line in held), None)

    def _holds(self, line: str) -> bool:
        """Whether ``line``, a line of a middle, is a shared line."""
        if not line.endswith("\n"):
            return False  # it ends its text, so there is no shared tail (head lines end)
        text, start, tail_at = self.before, self.start, len(self.before) - self.tail
        joined = "\n" + line
        return (
            text.startswith(line, 0, start)
            or text.find(joined, 0, start) >= 0
            or text.startswith(line, tail_at)
            or text.find(joined, tail_at) >= 0
        )


def _shared_lines(before: str, after: str) -> tuple[int, int]:
    """How many characters of whole lines ``before`` and ``after`` share at their
    start, and then at their end (not counting any twice)."""
    size_b, size_a = len(before), len(after)
    same = _shared(lambda lo, hi: before.startswith(after[lo:hi], lo), min(size_b, size_a))
    start = before.rfind("\n", 0, same) + 1
    tail = _shared(
        lambda lo, hi: before.startswith(after[size_a - hi : size_a - lo], size_b - hi),
        min(size_b, size_a) - start,
    )
    if not (_starts_line(before, size_b - tail) and _starts_line(after, size_a - tail)):
        newline = before.find("\n", size_b - tail)
        tail = 0 if newline < 0 else size_b - newline - 1
    return start, tail


_BLOCK = 1 << 16  # characters compared at once: a copy that stays in the cache


def _shared(same: Callable[[int, int], bool], limit: int) -> int:
    """The most characters, up to ``limit``, that two texts share at one end.

    ``same(lo, hi)`` compares their characters ``lo`` to ``hi`` from that end
    (those before ``lo`` are known to match), in C: blocks doubling (up to
    ``_BLOCK``) while they match, then halved down to the first difference, so
    that a character is compared a few times at most."""
    done, step = 0, 256
    while done + step < limit and same(done, done + step):
        done += step
        step = min(2 * step, _BLOCK)
    most = min(done + step, limit)
    while done < most:
        middle = (done + most + 1) // 2
        if same(done, middle):
            done = middle
        else:
            most = middle - 1
    return done


def _starts_line(text: str, at: int) -> bool:
    return at == 0 or text[at - 1] == "\n"


_WALKED = 32  # lines stepped over one by one; past that, a split in C counts them


def _line_of(text: str, offset: int, anchor: tuple[int, int] | None) -> int:
    """The line (0-based) starting at ``offset``, counted from ``anchor`` when it is a
    line start of ``text``."""
    if anchor is not None:
        line, at = anchor
        if (line, at) == (0, 0) or (line > 0 and 0 < at <= len(text) and text[at - 1] == "\n"):
            if at <= offset:
                return line + text.count("\n", at, offset)
            return line - text.count("\n", offset, at)
    return text.count("\n", 0, offset)


def _line_start(text: str, known: tuple[int, int], line: int) -> int:
    """The start of ``line``, an earlier line than the one ``known`` starts
    (``(offset, line)``): walked back to when near, else found from the start."""
    at, known_line = known
    gap = known_line - line
    if gap > _WALKED and line < gap:  # nearer the start: the lines up to it split in C
        return len(text) - len(text.split("\n", line)[-1])
    return lines_back(text, at, gap)


def lines_back(text: str, at: int, lines: int) -> int:
    """The start of the line ``lines`` lines before the line starting at ``at`` (or 0)."""
    for _ in range(lines):
        if at == 0:
            break
        at = text.rfind("\n", 0, at - 1) + 1
    return at


def lines_on(text: str, at: int, lines: int) -> int:
    """The start of the line ``lines`` lines after the line starting at ``at`` (or
    the end of ``text``)."""
    if lines > _WALKED:
        rest = text[at:].split("\n", lines)
        return len(text) - len(rest[-1]) if len(rest) > lines else len(text)
    for _ in range(lines):
        newline = text.find("\n", at)
        if newline < 0:
            return len(text)
        at = newline + 1
    return at


def diff_middles(
    old: Sequence[str], new: Sequence[str], cut: Cut
) -> list[tuple[int, int, int, int]]:
    """The changes ``line_opcodes`` finds between the whole texts' lines, from the
    lines of their middles (``old``, ``new``).

    It matches the lines both share at either end first, so the middles give
    its answer, but for one test: two long sides of as many lines are diffed
    line by line unless a changed line of each side is a line of the other,
    anywhere in it. That test is made here on the whole texts. When such a
    line is found only among the shared lines, it is put before both middles
    (matched and dropped again there), so that the diff of the middles finds
    it too and does not diff them line by line."""
    guard: list[str] = []
    if len(old) == len(new) and _longer(cut, len(old)):
        changed = list(compress(range(len(old)), map(ne, old, new)))
        if changed:
            in_old = _found({new[i] for i in changed}, old, cut)
            in_new = None if in_old is None else _found({old[i] for i in changed}, new, cut)
            if in_old is None or in_new is None:
                return _runs(changed)
            guard = [*in_old, *in_new]
    if guard:
        old, new = [*guard, *old], [*guard, *new]
    moved = len(guard)
    return [
        (i1 - moved, i2 - moved, j1 - moved, j2 - moved)
        for tag, i1, i2, j1, j2 in line_opcodes(old, new)
        if tag != "equal"
    ]


def _longer(cut: Cut, middle: int) -> bool:
    """Whether the whole texts, of ``middle`` lines between the shared ones each,
    are long enough for ``line_opcodes`` to diff them line by line."""
    lines = cut.lines + middle
    if lines * lines <= WHOLE:
        lines += cut.tail_lines()  # counted only when it can matter
    return lines * lines > WHOLE


def _found(lines: set[str], other: Sequence[str], cut: Cut) -> list[str] | None:
    """None when none of ``lines`` is a line of the other whole text (``other``: its
    middle); else no line when one is in ``other``, or one found among the shared lines."""
    if not lines.isdisjoint(other):
        return []
    shared = cut.shared(lines)
    return None if shared is None else [shared]


def _runs(changed: Sequence[int]) -> list[tuple[int, int, int, int]]:
    """Each run of changed lines (``changed``: their indexes, in order) replaced in place."""
    runs: list[tuple[int, int, int, int]] = []
    for i in changed:
        if runs and runs[-1][1] == i:
            first = runs[-1][0]
            runs[-1] = (first, i + 1, first, i + 1)
        else:
            runs.append((i, i + 1, i, i + 1))
    return runs
