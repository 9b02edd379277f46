"""The one live line under the steps: what the model is doing now, and for how long.

"waiting for the endpoint 3.1 s", "thinking 12.4 s · so add must…",
"writing create_file 2.3 kB 4.0 s". A ``rich`` renderable: the live display
redraws it several times a second, so the clock moves while nothing streams.
Above it, ``above`` is the line of the model's answer still being written
(its end, when it is wider than the terminal): the rest of the answer is
printed a whole line at a time, but what is on its way is seen as it comes.
What it draws passes ``editing.visible``: a step's summary, the model's
thinking and its answer are model-chosen text.
"""

from __future__ import annotations

import time

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from editing.visible import visible

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TAIL = 48  # characters of thinking shown


class StatusLine:
    def __init__(self) -> None:
        self.label = ""
        self.detail = ""
        self.since = time.monotonic()
        self.above = ""  # the unfinished line of the answer, drawn above the status

    def set(self, label: str, detail: str = "", *, restart: bool = False) -> bool:
        """Show ``label``; True when it is new (worth drawing at once)."""
        new = restart or label != self.label
        if new:
            self.since = time.monotonic()
        self.label = label
        self.detail = detail
        return new

    def think(self, text: str) -> bool:
        tail = (self.detail + text).replace("\n", " ")[-TAIL:]
        return self.set("thinking", tail)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.above:
            yield Text(_tail(self.above, options.max_width - 1), style="dim", no_wrap=True)
        yield self.line()

    def line(self) -> Text:
        elapsed = time.monotonic() - self.since
        frame = FRAMES[int(elapsed * 10) % len(FRAMES)]
        line = Text(f"{frame} {visible(self.label)} ", style="cyan")
        line.append(f"{elapsed:.1f} s", style="bold")
        if self.detail:
            line.append(f" · {visible(self.detail.strip())}", style="dim")
        line.no_wrap = True
        line.overflow = "ellipsis"
        return line


def _tail(text: str, width: int) -> str:
    """The end of ``text`` (hidden characters escaped) that fits in ``width`` cells."""
    shown = visible(text.replace("\t", "    "))
    width = max(width, 8)
    if cell_len(shown) <= width:
        return shown
    shown = shown[-width:]
    while cell_len(shown) > width - 1:
        shown = shown[1:]
    return "…" + shown


def size_text(chars: int) -> str:
    """``2345`` -> ``2.3 kB``."""
    if chars < 1000:
        return f"{chars} B"
    if chars < 1_000_000:
        return f"{chars / 1000:.1f} kB"
    return f"{chars / 1_000_000:.1f} MB"
