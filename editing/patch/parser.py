"""Parse the patch format, whole or streamed, into a ``Patch``.

Grammar (``LF`` ends every line; a CRLF patch is read the same)::

    patch     := wrapper? "*** Begin Patch" LF op+ "*** End Patch" LF? wrapper-end?
    op        := add | delete | update
    add       := "*** Add File: " path LF ("+" text LF)*
    delete    := "*** Delete File: " path LF
    update    := "*** Update File: " path LF ("*** Move to: " path LF chunk* | chunk+)
    chunk     := anchor* line+ ("*** End of File" LF)?
    anchor    := "@@" (" " text)? LF
    line      := (" " | "-" | "+") text LF
    wrapper   := (command " ")? "<<" "-"? (word | "'" word "'" | "\\"" word "\\"") LF
    command   := "apply_patch" | "applypatch" | "apply-patch" | "cat"
    wrapper-end := word LF?

Lenient where models are sloppy and the meaning is still certain: blank
lines and whitespace around the patch and around markers; a heredoc
wrapper (any terminator word), a Markdown code fence or a BOM around it;
the first chunk of an update without ``@@``; several ``@@`` lines in a row
(nested anchors: a class, then a method in it); a unified-diff header
``@@ -12,7 +12,8 @@`` read as a bare ``@@``; blank lines between chunks and
operations; a blank line inside a chunk (an empty context line, like a lone
space) or inside an added file (an empty line); unified-diff file headers
(``--- a/path`` then ``+++ b/path``) at the start of an update that name its
own file (they are dropped; naming another file, they are an error). Blank lines at either edge
of a chunk separate it from what surrounds it: they are not context (so an
empty context line there only shortens the chunk's context).

Strict where guessing could damage code: an unknown ``***`` header, a line
of an added file or a chunk without its marker, a ``Move to`` that does
not directly follow its ``Update File``, an update without chunks, an
``@@`` with no lines under it, and a patch without ``*** End Patch`` (the
output was cut off) are parse errors naming the line, what was expected and
how to fix it.

``PatchStream`` is the parser: ``push`` feeds text as it arrives and returns
each file operation as soon as its text is complete; ``finish`` returns the
whole ``Patch`` or raises ``PatchParseError``. ``parse_patch`` is one push
and a finish, so both give the same result for any split of the text.
The module stays whole, past the usual size: ``PatchStream`` is one state
machine whose methods all read and write its state (the operation, the
chunk and the blank lines being read), and the grammar above, which it
implements, belongs beside it.
"""

from __future__ import annotations

import re
from enum import Enum, auto

from ..document import BOM
from ..errors import PatchParseError
from . import messages
from .model import ADDED, CONTEXT, REMOVED, AddFile, Chunk, DeleteFile, FileOp, Patch, UpdateFile

BEGIN, END, END_OF_FILE = "*** Begin Patch", "*** End Patch", "*** End of File"
_HEADER = re.compile(r"^\*\*\* (Add File|Delete File|Update File|Move to): ?(.*)$")
# A heredoc opening, bare or after the command that reads it.
_WRAPPER = re.compile(
    r"""^(?:(?:apply_patch|applypatch|apply-patch|cat)\s+)?<<-?\s*(['"]?)(\w+)\1$"""
)
_FENCE = re.compile(r"^```[\w-]*$")  # a Markdown code fence around the patch
_UNIFIED_HUNK = re.compile(r"^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$")
# A unified-diff file header line's path (after "--- " or "+++ "), before a tab and its date.
_DIFF_HEADER_PATH = re.compile(r"^(\S+)(?:\t.*)?$")


_CHUNK_MARKERS = frozenset((CONTEXT, REMOVED, ADDED))


class _State(Enum):
    START = auto()  # before "*** Begin Patch"
    BODY = auto()  # between operations
    ADD = auto()
    UPDATE = auto()
    END = auto()  # after "*** End Patch"


def parse_patch(text: str) -> Patch:
    """The patch in ``text``, or a ``PatchParseError``."""
    stream = PatchStream()
    stream.push(text)
    return stream.finish()


class PatchStream:
    """An incremental parser: ``push(delta)`` as text arrives, then ``finish()``."""

    def __init__(self) -> None:
        self._buffer = ""
        self._number = 0  # of the last line read
        self._state = _State.START
        self._terminator: str | None = None  # of a heredoc wrapper
        self._ops: list[FileOp] = []
        self._error: PatchParseError | None = None
        # The operation being read.
        self._path = ""
        self._op_line = 0
        self._move_to: str | None = None
        self._added: list[str] = []
        self._chunks: list[Chunk] = []
        # The chunk being read, and blank lines not yet known to be inside it.
        self._anchors: list[str] = []
        self._lines: list[tuple[str, str]] = []
        self._chunk_line = 0
        self._blanks = 0

    def push(self, delta: str) -> list[FileOp]:
        """Feed text; returns the operations completed by it."""
        self._buffer += delta
        done_before = len(self._ops)
        text = self._buffer
        *complete, self._buffer = text.split("\n")
        self._read_lines(complete, crlf="\r" in text)
        return self._ops[done_before:]

    def finish(self) -> Patch:
        """The whole patch, once all text was pushed; raises ``PatchParseError``."""
        if self._buffer:
            self._read(self._buffer)
            self._buffer = ""
        if self._error is None and self._state is not _State.END:
            if self._state is _State.START:
                self._fail(self._number, messages.NO_BEGIN)
            else:
                self._fail(self._number, messages.NO_END)
        if self._error is None and not self._ops:
            self._fail(self._number, messages.NO_OPS)
        if self._error is not None:
            raise self._error
        return Patch(tuple(self._ops))

    # -- lines ---------------------------------------------------------------

    def _read_lines(self, raws: list[str], *, crlf: bool = True) -> None:
        """``_read`` each line; the lines of a chunk after its first, which are
        most lines of a patch, are taken here directly (``_dispatch`` and
        ``_update_line`` would come to the same), and so are ``@@`` lines.
        Without ``crlf`` no line ends with a CR to drop."""
        in_chunk = self._in_chunk()
        lines, terminator, blanks = self._lines, self._terminator, self._blanks
        number = self._number
        for raw in raws:
            line = raw[:-1] if crlf and raw[-1:] == "\r" else raw
            marker = line[:1]
            if (
                in_chunk
                and marker in _CHUNK_MARKERS
                and (marker != CONTEXT or line.strip())
                and ("***" not in line or not line.lstrip().startswith("***"))
                and (marker != ADDED or len(lines) != 1 or not line.startswith("+++ "))
                and (terminator is None or line.rstrip() != terminator)
            ):
                number += 1
                if blanks:
                    lines.extend([(CONTEXT, "")] * blanks)
                    self._blanks = blanks = 0
                lines.append((marker, line[1:]))
                continue
            self._number = number
            if marker == "@" and line.startswith("@@") and self._takes_anchor():
                # What ``_dispatch`` does with an ``@@`` line in an update.
                self._number += 1
                self._anchor(line[2:].strip())
            else:
                self._read(raw)
            in_chunk = self._in_chunk()
            lines, terminator, blanks = self._lines, self._terminator, self._blanks
            number = self._number
        self._number = number

    def _takes_anchor(self) -> bool:
        return self._error is None and self._state is _State.UPDATE

    def _in_chunk(self) -> bool:
        """Whether the next line, if it is a chunk line, continues a chunk."""
        return (
            self._error is None
            and self._state is _State.UPDATE
            and bool(self._lines or self._anchors)
        )

    def _read(self, raw: str) -> None:
        self._number += 1
        if self._error is not None:
            return
        line = raw.removesuffix("\r")
        try:
            self._dispatch(line)
        except PatchParseError as error:
            self._error = error

    def _dispatch(self, line: str) -> None:
        if self._is_plain_chunk_line(line):
            self._update_line(line)
            return
        stripped = line.strip()
        in_body = self._state in (_State.BODY, _State.ADD, _State.UPDATE)
        if in_body and line.rstrip() == self._terminator:
            # The heredoc closed before the patch did.
            self._fail(self._number, messages.NO_END)
        if self._state is _State.START:
            self._start(stripped)
        elif self._state is _State.END:
            self._after_end(stripped)
        elif _is_marker(line, stripped, self._state):
            self._marker(stripped)
        elif self._state is _State.ADD:
            self._add_line(line)
        elif self._state is _State.UPDATE:
            self._update_line(line)
        elif stripped:
            self._fail(self._number, messages.EXPECTED_OP.format(line=stripped))

    def _is_plain_chunk_line(self, line: str) -> bool:
        """Whether the line is what most lines of a patch are, a chunk line that
        no marker or end can be (the checks below would all come to that)."""
        return (
            self._state is _State.UPDATE
            and line[:1] in (CONTEXT, REMOVED, ADDED)
            and not line.lstrip().startswith("***")
            and (self._terminator is None or line.rstrip() != self._terminator)
        )

    def _start(self, stripped: str) -> None:
        stripped = stripped.removeprefix(BOM).strip()
        wrapper = _WRAPPER.match(stripped)
        if not stripped or _FENCE.match(stripped):
            return
        if wrapper and self._terminator is None:
            self._terminator = wrapper.group(2)
        elif stripped == BEGIN:
            self._state = _State.BODY
        else:
            self._fail(self._number, messages.EXPECTED_BEGIN.format(line=stripped))

    def _after_end(self, stripped: str) -> None:
        if not stripped or _FENCE.match(stripped):
            return
        if self._terminator is not None and stripped == self._terminator:
            self._terminator = None
            return
        self._fail(self._number, messages.AFTER_END.format(line=stripped))

    def _marker(self, stripped: str) -> None:
        if stripped == END_OF_FILE:
            self._end_of_file()
            return
        header = _HEADER.match(stripped)
        if header and header.group(1) == "Move to":
            self._move(header.group(2).strip())
            return
        self._close_op()
        if stripped == END:
            self._state = _State.END
        elif header is None:
            self._fail(self._number, messages.UNKNOWN_HEADER.format(line=stripped))
        else:
            self._open_op(header.group(1), header.group(2).strip())

    def _open_op(self, kind: str, path: str) -> None:
        if not path:
            self._fail(self._number, messages.NO_PATH.format(header=f"*** {kind}:"))
        self._path, self._op_line = path, self._number
        if kind == "Delete File":
            self._ops.append(DeleteFile(path, line=self._number))
            self._state = _State.BODY
        elif kind == "Add File":
            self._added = []
            self._blanks = 0
            self._state = _State.ADD
        else:
            self._move_to = None
            self._chunks = []
            self._reset_chunk()
            self._state = _State.UPDATE

    def _move(self, path: str) -> None:
        just_opened = (
            self._state is _State.UPDATE
            and self._move_to is None
            and not self._chunks
            and not self._anchors
            and not self._lines
            and self._number == self._op_line + 1
        )
        if not just_opened:
            self._fail(self._number, messages.MISPLACED_MOVE)
        if not path:
            self._fail(self._number, messages.NO_PATH.format(header="*** Move to:"))
        self._move_to = path

    def _close_op(self) -> None:
        """Complete the operation being read (before a marker that ends it)."""
        if self._state is _State.ADD:
            content = "".join(text + "\n" for text in self._added)
            self._ops.append(AddFile(self._path, content, line=self._op_line))
        elif self._state is _State.UPDATE:
            self._close_chunk()
            if not self._chunks and self._move_to is None:
                # Without chunks an update is only meaningful as a rename.
                self._fail(self._op_line, messages.EMPTY_UPDATE.format(path=self._path))
            self._ops.append(
                UpdateFile(self._path, tuple(self._chunks), self._move_to, line=self._op_line)
            )
        self._state = _State.BODY

    # -- added files -------------------------------------------------------------

    def _add_line(self, line: str) -> None:
        if not line.strip():
            self._blanks += 1  # an empty line, if more "+" lines follow
        elif line.startswith(ADDED):
            self._added.extend([""] * self._blanks)
            self._blanks = 0
            self._added.append(line[1:])
        else:
            self._fail(self._number, messages.ADD_WITHOUT_PLUS.format(line=line.strip()))

    # -- updates -------------------------------------------------------------------

    def _update_line(self, line: str) -> None:
        if line.startswith("+++ ") and self._drops_diff_header(line[4:]):
            return
        if line.startswith("@@"):
            self._anchor(line[2:].strip())
        elif not line.strip():
            if self._lines:
                self._blanks += 1  # an empty context line, if the chunk goes on
        elif line[0] in (CONTEXT, REMOVED, ADDED):
            if not self._lines and not self._anchors:
                if self._chunks:
                    self._fail(self._number, messages.CHUNK_WITHOUT_ANCHOR)
                self._chunk_line = self._number
            self._lines.extend([(CONTEXT, "")] * self._blanks)
            self._blanks = 0
            self._lines.append((line[0], line[1:]))
        else:
            self._fail(self._number, messages.CHUNK_LINE_WITHOUT_MARKER.format(line=line.strip()))

    def _drops_diff_header(self, new_name: str) -> bool:
        """Whether a ``+++`` line and the ``---`` line read just before it, as
        the only line of the update so far, are a unified-diff file header
        (then dropped); one naming another file is an error."""
        if self._chunks or self._anchors or len(self._lines) != 1:
            return False
        marker, text = self._lines[0]
        old = _DIFF_HEADER_PATH.match(text[3:]) if text.startswith("-- ") else None
        new = _DIFF_HEADER_PATH.match(new_name)
        if marker != REMOVED or old is None or new is None:
            return False
        names = {old.group(1).strip('"'), new.group(1).strip('"')} - {"/dev/null"}
        own = {self._path, self._move_to or self._path}
        if not names or not all(_names_one_of(name, own) for name in names):
            self._fail(
                self._number,
                messages.DIFF_HEADER_OTHER_FILE.format(
                    old=old.group(1), new=new.group(1), path=self._path
                ),
            )
        self._reset_chunk()
        return True

    def _anchor(self, text: str) -> None:
        if self._lines:
            self._close_chunk()
        if not self._anchors:
            self._chunk_line = self._number
        unified = _UNIFIED_HUNK.match(text) if text[:1] == "-" else None
        if unified:
            text = unified.group(1).strip()  # line numbers are never used
        if text:
            self._anchors.append(text)
        elif not self._anchors:
            self._anchors.append("")  # a bare "@@" still opens a chunk

    def _end_of_file(self) -> None:
        if self._state is not _State.UPDATE or not self._lines:
            self._fail(self._number, messages.MISPLACED_END_OF_FILE)
        self._close_chunk(end_of_file=True)

    def _close_chunk(self, *, end_of_file: bool = False) -> None:
        self._blanks = 0  # blank lines after a chunk only separate it from the next
        anchors = tuple(filter(None, self._anchors))  # the texts of the non-bare ones
        if self._lines:
            self._chunks.append(
                Chunk(anchors, tuple(self._lines), end_of_file, line=self._chunk_line)
            )
        elif self._anchors:
            self._fail(self._chunk_line, messages.EMPTY_CHUNK)
        self._reset_chunk()

    def _reset_chunk(self) -> None:
        self._anchors, self._lines, self._blanks = [], [], 0

    def _fail(self, line: int, problem: str) -> None:
        line = max(line, 1)
        raise PatchParseError(
            messages.PARSE_ERROR.format(line=line, problem=problem), path="", line=line
        )


def _names_one_of(name: str, paths: set[str]) -> bool:
    """Whether a unified-diff header's path, with or without its ``a/``/``b/``
    side, is one of ``paths``."""
    bare = {path.removeprefix("./") for path in paths}
    name = name.removeprefix("./")
    return name in bare or (name[:2] in ("a/", "b/") and name[2:] in bare)


def _is_marker(line: str, stripped: str, state: _State) -> bool:
    """Whether a line is a ``***`` marker rather than text of the operation.

    A marker of the format counts even when padded. Any other ``***`` line
    is an unknown header (an error) when it starts the line or stands
    between operations; inside an operation, indented, it is text (a
    context line keeps its leading space).
    """
    if stripped in (END, END_OF_FILE) or _HEADER.match(stripped):
        return True
    if state is _State.BODY:
        return stripped.startswith("***")
    return line.startswith("***")
