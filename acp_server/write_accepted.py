"""What the person accepted, landed on the files as the editor holds them now, and written.

Each file is read again (through ``fs/read_text_file`` when the client
offers it: the person may have typed since the task read it) and the
accepted hunks are landed on it by the core's landing (``agent.staging.landing``):
rebased around the person's change, a clash left out and reported, never
guessed. Texts are written through ``fs/write_text_file`` when the client
offers it (the editor's buffer is what changes), else to the disk; a
deletion, and a moved file's old path, are made on the disk (ACP has no
request for them). A file the editor refuses to write is left as it is and
named, the other texts are written all the same, but nothing then goes to
the disk round the editor (a deletion waits). The report is made from the texts read back
(``agent.staging.landed.judge``), and what was written is recorded for
``surehand undo``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from agent.staging.history import FileChange, History
from agent.staging.landed import judge, unsent, with_landing
from agent.staging.landing import land
from agent.staging.proposal import Proposal, ProposedChange
from agent.staging.review import Review
from agent.staging.walk import Walk, review_of
from editing.disk.workdir import Workdir

log = logging.getLogger(__name__)
REFUSED_ELSEWHERE = "not made: the editor refused to write other files of this review"

Read = Callable[[str], Awaitable[str | None]]
"""The text of a workspace path as the editor (or the disk) holds it now; None: no file."""
Write = Callable[[str, str], Awaitable[None]]
"""Writes a text to a workspace path through the editor."""


@dataclass(frozen=True)
class Written:
    """What became of the accepted part, and the files the editor refused to write."""

    review: Review
    refused: dict[str, str]  # path -> the editor's error, in its words


async def write_accepted(
    offered: Proposal, walk: Walk, root: Path, *, read: Read, write: Write | None, task: str
) -> Written:
    """Land and write what ``walk`` accepted of ``offered``: each file on its own (a file
    the editor refuses to write is left as it is, and said; the others are written)."""
    chosen, left = walk.chosen()
    if not chosen.changes:
        return Written(review_of(offered, [], left), {})
    paths = {c.path for c in chosen.changes} | {c.source for c in chosen.changes if c.source}
    seen = {path: await read(path) for path in sorted(paths)}
    landed, landings = land(chosen, seen.get)
    disk = Workdir(root)
    refused: dict[str, str] = {}
    writes = landed.writes()
    through_editor = {p: t for p, t in writes.items() if t is not None} if write else {}
    for path, written_text in through_editor.items():
        try:
            await write(path, written_text)  # type: ignore[misc] # set only with write
        except Exception as error:  # the editor refused, or failed: said, not raised
            log.info("writing %s failed", path, exc_info=True)
            refused[path] = _words(error)
    for path, text in writes.items():  # deletions, and texts where the editor writes none
        if path in through_editor:
            continue
        if refused:  # the editor said no to writes: nothing goes round it to the disk
            refused[path] = REFUSED_ELSEWHERE
            continue
        try:
            disk.write({path: text})
        except OSError as error:
            refused[path] = str(error)
    after = {path: await read(path) for path in sorted(paths)}
    written = {c.path: c for c in landed.changes}
    reports = [
        with_landing(judge(written[c.path], after.get), landing)
        if c.path in written
        else unsent(c, landing)
        for c, landing in zip(chosen.changes, landings, strict=True)
    ]
    done = [
        c
        for c in landed.changes
        if c.path not in refused and (c.source is None or c.source not in refused)
    ]
    _record(root, task, done)
    return Written(review_of(offered, reports, left), refused)


def _words(error: Exception) -> str:
    """An error as a person reads it: a JSON-RPC error's details, else its message."""
    data = getattr(error, "data", None)
    if isinstance(data, dict) and isinstance(data.get("details"), str):
        return data["details"]
    return str(error) or type(error).__name__


def _record(root: Path, task: str, changes: list[ProposedChange]) -> None:
    files = [FileChange(c.path, c.before, c.after, c.source) for c in changes]
    try:
        History.of(root).record(task, files, front="acp")
    except OSError:
        log.warning("not recorded for surehand undo", exc_info=True)
