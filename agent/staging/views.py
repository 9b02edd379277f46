"""What the model has seen of each file, and how its edits on a file fare.

Stale views: the text of a file when the model last saw it (a view, or its
own edit landing). If the file changed since (the user typed, another edit
landed) and an edit touches a changed part, the edit is refused and the
model gets the current text of that part. Changes elsewhere do not block a
content-anchored edit.

Retry budget: after ``RETRY_BUDGET`` failed edits in a row on one file, each
further failure comes with the file's current text (whole when small,
around the failure otherwise) so the model works from facts, not memory.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from agent import messages
from editing.line_diff import line_opcodes

RETRY_BUDGET = 2
SMALL_FILE_LINES = 150
AROUND = 20

Span = tuple[int, int]  # 0-based line span [start, end) of the current text


@dataclass
class Views:
    seen: dict[str, str] = field(default_factory=dict)
    failures: Counter[str] = field(default_factory=Counter)

    def saw(self, path: str, text: str) -> None:
        self.seen[path] = text

    def stale(self, path: str, current: str, touched: list[Span]) -> str | None:
        """The current text of the parts the model has not seen and an edit touches."""
        seen = self.seen.get(path)
        if seen is None or seen == current:
            return None
        lines = current.split("\n")
        changed = changed_spans(seen, current)
        hits = [c for c in changed if any(_overlap(c, t) for t in touched)]
        if not hits:
            return None
        start = max(0, min(a for a, _ in hits) - 2)
        end = min(len(lines), max(b for _, b in hits) + 2)
        return messages.STALE_VIEW.format(
            path=path, first=start + 1, last=end, numbered=numbered(lines[start:end], start + 1)
        )

    def failed(self, path: str, current: str | None, message: str, line: int | None) -> str:
        """``message``, with the file's current text once the retry budget is spent
        (around ``line``, the line the failure points at, in a big file)."""
        self.failures[path] += 1
        if current is None or self.failures[path] <= RETRY_BUDGET:
            return message
        lines = current.split("\n")
        shown, first = lines, 1
        if len(lines) > SMALL_FILE_LINES:
            first = max(1, line - AROUND) if line else 1
            shown = lines[first - 1 : first - 1 + AROUND * 2]
        self.seen[path] = current
        return messages.RETRY_BUDGET_SPENT.format(
            message=message,
            failures=self.failures[path],
            path=path,
            first=first,
            last=first + len(shown) - 1,
            numbered=numbered(shown, first),
        )

    def succeeded(self, path: str, text: str | None) -> None:
        self.failures[path] = 0
        if text is not None:
            self.seen[path] = text


def changed_spans(before: str, after: str) -> list[Span]:
    """The spans of ``after`` that differ from ``before`` (empty spans mark deletions)."""
    opcodes = line_opcodes(before.split("\n"), after.split("\n"))
    return [(j1, j2) for tag, _, _, j1, j2 in opcodes if tag != "equal"]


def touched_spans(before: str, after: str) -> list[Span]:
    """The spans of ``before`` that ``after`` replaces (empty spans mark insertions).

    The engine's line diff, not ``difflib``'s over the whole texts: that one
    grows with the square of the repeated lines (seconds for a patch of a
    few thousand lines of look-alike functions).
    """
    opcodes = line_opcodes(before.split("\n"), after.split("\n"))
    return [(i1, i2) for tag, i1, i2, _, _ in opcodes if tag != "equal"]


def numbered(lines: list[str], first: int) -> str:
    width = len(str(first + len(lines) - 1))
    return "\n".join(f"{first + i:>{width}}→{line}" for i, line in enumerate(lines))


def _overlap(a: Span, b: Span) -> bool:
    if a[0] == a[1] or b[0] == b[1]:  # an empty span is a point between lines
        return a[0] <= b[1] and b[0] <= a[1]
    return a[0] < b[1] and b[0] < a[1]
