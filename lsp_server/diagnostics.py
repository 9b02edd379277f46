"""Review items and command approvals as ``Diagnostic``s: where each one is, and what.

A hunk is shown at its lines (Information; Hint once it went stale), a
file operation and an approval at the first line of the file they are shown
on. The message is the edit's description and a short diff, so a client
with nothing else (no ``window/showDocument``) still shows what would
change; ``code`` and ``data`` carry the item's id for code actions and
keymaps. Every text a model chose (labels, paths, commands, the diff's
lines) goes through ``editing.visible``: a control or bidi character is
shown as its escape, never interpreted by the editor.

An item on a file that changes how tools run (``ProposedChange.governs``)
is a Warning whose message starts with ``GOVERNS_MARK`` and says what the
file governs; ``data.governs`` carries that sentence.
"""

from __future__ import annotations

from lsprotocol import types

from editing.visible import visible

from . import positions
from .hunk_review import Item, Kind, State

SOURCE = "surehand"
DIFF_LINES = 8  # lines of each side shown in a message
GOVERNS_MARK = "[changes how tools run]"
"""The start of the message of an item on a file that changes how tools run."""
TAB = "\t"
ONE_BY_ONE = "Accept it on its own: accept-all leaves it out."


def item_diagnostic(item: Item, text: str, encoding: str) -> types.Diagnostic:
    """The diagnostic of a review item on ``text``, the current text of the file it is on."""
    stale = item.state is State.STALE
    if item.kind is Kind.HUNK and item.hunk is not None:
        text_range = lsp_range(text, item.hunk.start, item.hunk.end, encoding)
    else:
        text_range = lsp_range(text, 0, 0, encoding)
    severity = types.DiagnosticSeverity.Information
    data: dict[str, str] = {"id": item.id}
    if item.governs:
        severity = types.DiagnosticSeverity.Warning
        data["governs"] = item.governs
    if stale:
        severity = types.DiagnosticSeverity.Hint
    return types.Diagnostic(
        range=text_range,
        message=item_message(item, text),
        severity=severity,
        source=SOURCE,
        code=item.id,
        data=data,
    )


def approval_diagnostic(
    approval_id: str, question: str, text: str, encoding: str, line: int = 0
) -> types.Diagnostic:
    """A command waiting for the person's answer, at ``line`` (0-based, kept inside the
    text) of the file it is shown on; ``question`` is already made visible."""
    starts = positions.line_starts(text)
    start = starts[min(max(line, 0), len(starts) - 1)]
    end = start + len(text[start:].split("\n", 1)[0].rstrip("\r"))
    return types.Diagnostic(
        range=lsp_range(text, start, end, encoding),
        message=f"{question}\nAllow or deny it with a code action here.",
        severity=types.DiagnosticSeverity.Warning,
        source=SOURCE,
        code=approval_id,
        data={"id": approval_id},
    )


ELSEWHERE = "surehand-elsewhere"
"""The code of the diagnostic that lists changes waiting in files that are not open."""


def elsewhere_diagnostic(counts: dict[str, int], waiting: list[str]) -> types.Diagnostic:
    """On the first line of an open file: the files not open that hold changes to review
    (``counts``: their paths and how many), and where commands wait for an answer."""
    parts = []
    if counts:
        listed = ", ".join(f"{visible(path)} ({n})" for path, n in sorted(counts.items()))
        total = sum(counts.values())
        parts.append(
            f"surehand: {total} change{'s' if total != 1 else ''} to review in files that "
            f"are not open: {listed}. Open them to see each, or use the code actions here."
        )
    parts += [f"surehand waits for your answer at {visible(where)}." for where in waiting]
    return types.Diagnostic(
        range=types.Range(
            start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
        ),
        message="\n".join(parts),
        severity=types.DiagnosticSeverity.Information,
        source=SOURCE,
        code=ELSEWHERE,
        data={"id": ELSEWHERE},
    )


def item_message(item: Item, text: str) -> str:
    label, path, source = visible(item.label), visible(item.path), visible(item.change.source or "")
    heading = {
        Kind.HUNK: f"surehand proposes: {label}",
        Kind.CREATE: f"surehand proposes a new file {path}: {label}",
        Kind.DELETE: f"surehand proposes deleting {path}: {label}",
        Kind.RENAME: f"surehand proposes moving {source} to {path}: {label}",
    }[item.kind]
    if item.governs:
        heading = (
            f"{GOVERNS_MARK} {heading}\n{path} changes how tools run: {item.governs}. " + ONE_BY_ONE
        )
    if item.state is State.STALE:
        heading += "\n(stale: you changed these lines since; it can only be rejected)"
    if item.kind is Kind.DELETE:
        return heading
    old = "" if item.kind is Kind.CREATE else item.old_text(text)
    if item.kind is Kind.RENAME:
        old = item.change.before or ""
    return f"{heading}\n{short_diff(old, item.new_text)}"


def short_diff(old: str, new: str) -> str:
    """The removed lines and the added ones, a few of each."""
    return "\n".join([*_side("-", old), *_side("+", new)])


def _side(sign: str, text: str) -> list[str]:
    """Up to ``DIFF_LINES`` lines of one side, split where editors split lines (LSP's
    line ends), each with every hidden character but a tab shown as its escape."""
    lines = positions.lines(text)
    shown = [f"{sign} {visible(line, keep=TAB)}".rstrip() for line in lines[:DIFF_LINES]]
    if len(lines) > DIFF_LINES:
        shown.append(f"{sign} … {len(lines) - DIFF_LINES} more lines")
    return shown


def lsp_range(text: str, start: int, end: int, encoding: str) -> types.Range:
    """The range of ``text[start:end]``; a region of whole lines ends at its last line's
    end, so the client does not mark the line after it."""
    if end > start and text[end - 1 : end] == "\n":
        end -= 1
        if end > start and text[end - 1 : end] == "\r":
            end -= 1
    starts = positions.line_starts(text)
    return types.Range(
        start=positions.position(text, start, encoding, starts),
        end=positions.position(text, end, encoding, starts),
    )
