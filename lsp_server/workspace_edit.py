"""A proposal as one ``WorkspaceEdit`` the editor can show and apply.

One ``TextEdit`` per hunk of each ``ProposedChange``: the model's staged edits,
as regions of the text the agent read (never a fresh diff of the whole
file, never a whole-file replacement). Positions in the negotiated
encoding, the file's own line endings in ``newText`` (the hunks already have
them), ``CreateFile`` / ``DeleteFile`` / ``RenameFile`` where needed, and
each ``TextDocumentEdit`` versioned with the buffer version the agent read
(``null`` for a file that is not open); a new file's edit spans the
first line a client opens it with. With ``annotate``, every hunk and
file operation carries a change annotation whose label is the description
of the edit(s) it holds (made visible: ``editing.visible``), to be
confirmed. A file that changes how tools run (``agent.staging.governing``) has
annotations of its own: id ``surehand-governs-<n>``, description
``changes how tools run: <what it governs>``; a client's review flags it and
leaves it out of "accept all" (docs/protocol.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types

from agent.staging.proposal import Proposal, ProposedChange
from editing.visible import visible

from . import positions
from .documents import uri_of

Versions = Callable[[str, str], int | None]
"""The buffer version the agent read ``path`` at, given the text it read (None: not open)."""
DocumentChange = types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile
GOVERNS_ID = "surehand-governs-"
"""The start of the id of an annotation on a file that changes how tools run."""
GOVERNS_DESCRIPTION = "changes how tools run: {what}"


def build(
    proposal: Proposal,
    root: Path,
    encoding: str,
    versions: Versions,
    *,
    annotate: bool,
) -> types.WorkspaceEdit:
    builder = _Builder(root, encoding, versions, annotate)
    changes = [edit for change in proposal.changes for edit in builder.file_edits(change)]
    # The map is always there when annotating: some clients assert on it.
    return types.WorkspaceEdit(
        document_changes=changes, change_annotations=builder.annotations() if annotate else None
    )


def in_steps(edit: types.WorkspaceEdit) -> list[types.WorkspaceEdit]:
    """One file item's edit as the edits to send one after the other: its file operations,
    then its text edits. LSP applies ``documentChanges`` in order, but lsp-mode 8.0 applies
    the text edits first, so a new or moved file's text went nowhere; sent apart, the
    text edit only goes once the file is there, in every client."""
    changes = edit.document_changes or []
    operations = [c for c in changes if not isinstance(c, types.TextDocumentEdit)]
    texts = [c for c in changes if isinstance(c, types.TextDocumentEdit)]
    if not operations or not texts:
        return [edit]
    return [
        types.WorkspaceEdit(document_changes=operations),
        types.WorkspaceEdit(document_changes=texts),
    ]


@dataclass
class _Builder:
    root: Path
    encoding: str
    versions: Versions
    annotate: bool
    # annotation id by (label, what the file governs or None)
    _ids: dict[tuple[str, str | None], str] = field(default_factory=dict)
    _governs: str | None = None  # of the file whose edits are being built

    def annotation(self, label: str) -> str | None:
        """The id of ``label``'s change annotation; None when not annotating."""
        if not self.annotate:
            return None
        key = (visible(label), self._governs)
        if key not in self._ids:
            start = GOVERNS_ID if self._governs else "surehand-"
            self._ids[key] = f"{start}{len(self._ids) + 1}"
        return self._ids[key]

    def annotations(self) -> dict[str, types.ChangeAnnotation]:
        return {
            id_: types.ChangeAnnotation(
                label=label,
                needs_confirmation=True,
                description=GOVERNS_DESCRIPTION.format(what=governs)
                if governs
                else "proposed by surehand",
            )
            for (label, governs), id_ in self._ids.items()
        }

    def file_edits(self, change: ProposedChange) -> list[DocumentChange]:
        uri = uri_of(self.root, change.path)
        label = change.descriptions[-1] if change.descriptions else "change"
        self._governs = change.governs
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
        if edits := self._text_edits(change.before or "", change, label):
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
        self, before: str, change: ProposedChange, label: str
    ) -> list[types.TextEdit | types.AnnotatedTextEdit]:
        """One edit per hunk, annotated with the description of the edits it holds."""
        starts = positions.line_starts(before)
        edits: list[types.TextEdit | types.AnnotatedTextEdit] = []
        for hunk in change.hunks:
            text_range = types.Range(
                start=positions.position(before, hunk.start, self.encoding, starts),
                end=positions.position(before, hunk.end, self.encoding, starts),
            )
            if change.before is None:
                # A new file's buffer may open with one empty line (Neovim's does):
                # replace it too, or it stays as an extra blank line at the end.
                # Past the end, the range ends at the text's end in the spec's terms.
                text_range.end = types.Position(line=1, character=0)
            annotation_id = self.annotation(hunk.label if hunk.descriptions else label)
            if annotation_id is None:
                edits.append(types.TextEdit(range=text_range, new_text=hunk.text))
            else:
                edits.append(
                    types.AnnotatedTextEdit(
                        range=text_range, new_text=hunk.text, annotation_id=annotation_id
                    )
                )
        return edits
