"""What the person accepted, landed on the files as the editor holds them now, and written.

Each file is read again (through ``fs/read_text_file`` when the client
offers it: the person may have typed since the task read it) and the
accepted hunks are landed on it by the core's landing (``agent.landing``):
rebased around the person's change, a clash left out and reported, never
guessed. Texts are written through ``fs/write_text_file`` when the client
offers it (the editor's buffer is what changes), else to the disk; a
deletion, and a moved file's old path, are made on the disk (ACP has no
request for them). The report is made from the texts read back
(``agent.landed.judge``), and what was written is recorded for
``surehand undo``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

from agent.accept import review_of
from agent.history import FileChange, History
from agent.landed import judge, unsent, with_landing
from agent.landing import land
from agent.proposal import Proposal
from agent.review import Review
from agent.terminal_review import Walk
from editing.disk.workdir import Workdir

log = logging.getLogger(__name__)

Read = Callable[[str], Awaitable[str | None]]
"""The text of a workspace path as the editor (or the disk) holds it now; None: no file."""
Write = Callable[[str, str], Awaitable[None]]
"""Writes a text to a workspace path through the editor."""


async def write_accepted(
    offered: Proposal, walk: Walk, root: Path, *, read: Read, write: Write | None, task: str
) -> Review:
    """Land and write what ``walk`` accepted of ``offered``; the review of what became of it."""
    chosen, left = walk.chosen()
    if not chosen.changes:
        return review_of(offered, [], left)
    paths = {c.path for c in chosen.changes} | {c.source for c in chosen.changes if c.source}
    seen = {path: await read(path) for path in sorted(paths)}
    landed, landings = land(chosen, seen.get)
    disk = Workdir(root)
    for path, text in landed.writes().items():
        if text is not None and write is not None:
            await write(path, text)
        else:
            disk.write({path: text})
    after = {path: await read(path) for path in sorted(paths)}
    written = {c.path: c for c in landed.changes}
    reports = [
        with_landing(judge(written[c.path], after.get), landing)
        if c.path in written
        else unsent(c, landing)
        for c, landing in zip(chosen.changes, landings, strict=True)
    ]
    _record(root, task, landed)
    return review_of(offered, reports, left)


def _record(root: Path, task: str, landed: Proposal) -> None:
    files = [FileChange(c.path, c.before, c.after, c.source) for c in landed.changes]
    try:
        History.of(root).record(task, files, front="acp")
    except OSError:
        log.warning("not recorded for surehand undo", exc_info=True)
