"""A proposal as one ``WorkspaceEdit`` the editor can show and apply.

Minimal line hunks computed from each file's before and after text (never a
whole-file replacement), positions in the negotiated encoding, the file's
own line endings in ``newText`` (the after text already has them),
``CreateFile`` / ``DeleteFile`` / ``RenameFile`` where needed, and each
``TextDocumentEdit`` versioned with the buffer version the agent read
(``null`` for a file that is not open). With ``annotate``, every hunk and
file operation carries the change annotation of the agent edit that made
it (label: what the model said the edit was for), to be confirmed.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types

from agent.proposal import FileChange, Proposal
from agent.workspace import EditRecord

from . import positions
from .documents import uri_of
from .rebase import split_lines

Versions = Callable[[str, str], int | None]
"""The buffer version the agent read ``path`` at, given the text it read (None: not open)."""
DocumentChange = types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile


@dataclass(frozen=True)
class Hunk:
    """``before[start:end]`` becomes ``text``; ``after_lines`` is where it lands in after."""

    start: int
    end: int
    text: str
    after_lines: tuple[int, int]  # 0-based [start, end) lines of the after text


def hunks(before: str, after: str) -> list[Hunk]:
    old, new = split_lines(before), split_lines(after)
    offsets = [0]
    for line in old:
        offsets.append(offsets[-1] + len(line))
    return [
        Hunk(offsets[i1], offsets[i2], "".join(new[j1:j2]), (j1, j2))
        for tag, i1, i2, j1, j2 in _opcodes(old, new)
        if tag != "equal"
    ]


def build(
    proposal: Proposal,
    root: Path,
    encoding: str,
    versions: Versions,
    *,
    annotate: bool,
) -> types.WorkspaceEdit:
    builder = _Builder(root, encoding, versions, proposal.edits, annotate)
    changes = [edit for change in proposal.changes for edit in builder.file_edits(change)]
    # The map is always there when annotating: some clients assert on it.
    return types.WorkspaceEdit(
        document_changes=changes, change_annotations=builder.annotations() if annotate else None
    )


@dataclass
class _Builder:
    root: Path
    encoding: str
    versions: Versions
    records: Sequence[EditRecord]
    annotate: bool
    _ids: dict[str, str] = field(default_factory=dict)  # annotation id by label

    def annotation(self, label: str) -> str | None:
        """The id of ``label``'s change annotation; None when not annotating."""
        if not self.annotate:
            return None
        return self._ids.setdefault(label, f"surehand-{len(self._ids) + 1}")

    def annotations(self) -> dict[str, types.ChangeAnnotation]:
        return {
            id_: types.ChangeAnnotation(
                label=label, needs_confirmation=True, description="proposed by surehand"
            )
            for label, id_ in self._ids.items()
        }

    def file_edits(self, change: FileChange) -> list[DocumentChange]:
        uri = uri_of(self.root, change.path)
        label = change.descriptions[-1] if change.descriptions else "change"
        if change.after is None:
            return [types.DeleteFile(uri=uri, annotation_id=self.annotation(label))]
        out: list[DocumentChange] = []
        version = None
        if change.before is None:
            out.append(
                types.CreateFile(
                    uri=uri,
                    options=types.CreateFileOptions(overwrite=False, ignore_if_exists=False),
                    annotation_id=self.annotation(label),
                )
            )
        elif change.source is not None:
            out.append(
                types.RenameFile(
                    old_uri=uri_of(self.root, change.source),
                    new_uri=uri,
                    options=types.RenameFileOptions(overwrite=False, ignore_if_exists=False),
                    annotation_id=self.annotation(label),
                )
            )
        else:
            version = self.versions(change.path, change.before)
        if edits := self._text_edits(change.before or "", change.after, change, label):
            out.append(
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=uri, version=version
                    ),
                    edits=edits,
                )
            )
        return out

    def _text_edits(
        self, before: str, after: str, change: FileChange, label: str
    ) -> list[types.TextEdit | types.AnnotatedTextEdit]:
        """The hunks of ``before`` -> ``after``, each annotated with the edit it comes from."""
        labels = _labels(change, self.records) if self.annotate else None
        starts = positions.line_starts(before)
        edits: list[types.TextEdit | types.AnnotatedTextEdit] = []
        for hunk in hunks(before, after):
            text_range = types.Range(
                start=positions.position(before, hunk.start, self.encoding, starts),
                end=positions.position(before, hunk.end, self.encoding, starts),
            )
            annotation_id = self.annotation((labels(hunk) if labels else None) or label)
            if annotation_id is None:
                edits.append(types.TextEdit(range=text_range, new_text=hunk.text))
            else:
                edits.append(
                    types.AnnotatedTextEdit(
                        range=text_range, new_text=hunk.text, annotation_id=annotation_id
                    )
                )
        return edits


def _labels(change: FileChange, records: Sequence[EditRecord]) -> Callable[[Hunk], str | None]:
    """Which agent edit a hunk of the final text comes from: the last one touching its lines.

    The hunk's lines are followed back through the file's edits, newest
    first, until an edit whose changed lines they overlap. Each edit's line
    opcodes are worked out once, on the lines between its common head and tail.
    """
    own = [r for r in records if r.path in (change.path, change.source) and r.after is not None]
    steps = [
        (r.description, _opcodes(split_lines(r.before or ""), split_lines(r.after or "")))
        for r in reversed(own)
    ]

    def label(hunk: Hunk) -> str | None:
        start, end = hunk.after_lines
        for description, opcodes in steps:
            mapped = None
            for tag, i1, _i2, j1, j2 in opcodes:
                touches = (j1 < end and start < j2) or (start == end and j1 <= start <= j2)
                if tag != "equal" and touches:
                    return description
                if tag == "equal" and j1 <= start and end <= j2:
                    mapped = (start - j1 + i1, end - j1 + i1)
            if mapped is None:
                return description
            start, end = mapped
        return None

    return label


def _opcodes(old: list[str], new: list[str]) -> list[tuple[str, int, int, int, int]]:
    """Line opcodes of old -> new, with the common head and tail matched directly."""
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    middle = difflib.SequenceMatcher(
        None, old[head : len(old) - tail], new[head : len(new) - tail], autojunk=False
    ).get_opcodes()
    opcodes = [("equal", 0, head, 0, head)] if head else []
    opcodes += [(t, i1 + head, i2 + head, j1 + head, j2 + head) for t, i1, i2, j1, j2 in middle]
    if tail:
        opcodes.append(("equal", len(old) - tail, len(old), len(new) - tail, len(new)))
    return opcodes
