"""The one live line under the steps: what the model is doing now, and for how long.

"waiting for the endpoint 3.1 s", "thinking 12.4 s · so add must…",
"writing create_file 2.3 kB 4.0 s". A ``rich`` renderable: the live display
redraws it several times a second, so the clock moves while nothing streams.
What it draws passes ``editing.visible``: a step's summary and the model's
thinking are model-chosen text.
"""

from __future__ import annotations

import time

from rich.text import Text

from editing.visible import visible

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TAIL = 48  # characters of thinking shown


class StatusLine:
    def __init__(self) -> None:
        self.label = ""
        self.detail = ""
        self.since = time.monotonic()

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

    def __rich__(self) -> Text:
        elapsed = time.monotonic() - self.since
        frame = FRAMES[int(elapsed * 10) % len(FRAMES)]
        line = Text(f"{frame} {visible(self.label)} ", style="cyan")
        line.append(f"{elapsed:.1f} s", style="bold")
        if self.detail:
            line.append(f" · {visible(self.detail.strip())}", style="dim")
        line.no_wrap = True
        line.overflow = "ellipsis"
        return line


def size_text(chars: int) -> str:
    """``2345`` -> ``2.3 kB``."""
    if chars < 1000:
        return f"{chars} B"
    if chars < 1_000_000:
        return f"{chars / 1000:.1f} kB"
    return f"{chars / 1_000_000:.1f} MB"
