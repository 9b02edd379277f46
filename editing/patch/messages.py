"""Every text the model reads about a patch, in one place (tests pin them)."""

from __future__ import annotations

from typing import NamedTuple

from .model import Chunk

PARSE_ERROR = (
    "Patch not applied (parse error at line {line}; no file was changed): {problem} "
    "Send the whole patch again, corrected."
)
NO_BEGIN = "the patch has no '*** Begin Patch' line; a patch starts with it."
EXPECTED_BEGIN = "expected '*** Begin Patch' as the first line, got {line!r}."
NO_END = (
    "the patch ends without '*** End Patch', as if it was cut off; a patch ends with that line."
)
NO_OPS = "the patch has no file operations ('*** Add File:', '*** Update File:', ...)."
AFTER_END = "unexpected text after '*** End Patch': {line!r}."
EXPECTED_OP = (
    "expected a file operation ('*** Add File: <path>', '*** Update File: <path>', "
    "'*** Delete File: <path>') or '*** End Patch', got {line!r}."
)
UNKNOWN_HEADER = (
    "{line!r} is not a header of this format; the headers are '*** Add File: <path>', "
    "'*** Update File: <path>', '*** Delete File: <path>', '*** Move to: <path>', "
    "'*** End of File' and '*** End Patch'."
)
NO_PATH = "'{header}' needs a path after it."
MISPLACED_MOVE = (
    "'*** Move to:' must come directly after the '*** Update File:' line of the file it "
    "renames, and be followed by that file's chunks."
)
EMPTY_UPDATE = (
    "'*** Update File: {path}' has no chunks; give at least one chunk of ' ', '-' and '+' "
    "lines (only a rename, with '*** Move to:', needs none)."
)
EMPTY_CHUNK = "an '@@' line has no ' ', '-' or '+' lines under it."
CHUNK_WITHOUT_ANCHOR = "a chunk after '*** End of File' must start with an '@@' line."
CHUNK_LINE_WITHOUT_MARKER = (
    "every line of a chunk starts with ' ' (context), '-' (removed) or '+' (added); "
    "got {line!r}. Context lines keep their leading space."
)
ADD_WITHOUT_PLUS = (
    "every line of an added file starts with '+' (a lone '+' for an empty line); got {line!r}."
)
MISPLACED_END_OF_FILE = "'*** End of File' must directly follow the lines of a chunk."
DIFF_HEADER_OTHER_FILE = (
    "the unified-diff header lines '--- {old}' and '+++ {new}' name another file than "
    "'*** Update File: {path}', and a section changes only the file it names. Put these "
    "chunks under their own '*** Update File:' line, and leave out the '---'/'+++' lines "
    "(the format does not use them)."
)

# -- applying -------------------------------------------------------------------

_NOT_APPLIED = "Patch not applied (no file was changed): "
APPLIED = "Applied patch: {summary}."
NO_CHANGE = _NOT_APPLIED + "it would leave every file as it is. Nothing to do."
ADD_EXISTS = (
    _NOT_APPLIED + "'*** Add File: {path}' names a file that already exists. Use "
    "'*** Update File: {path}' to change it, or choose another path."
)
MOVE_EXISTS = (
    _NOT_APPLIED + "'*** Move to: {path}' names a file that already exists. Choose "
    "another destination."
)
MISSING = (
    _NOT_APPLIED + "'{header}: {path}': there is no such file. Check the path; "
    "'*** Add File:' creates a file."
)
CHUNK_NOT_FOUND = _NOT_APPLIED + "in {path}, chunk {index} of {count}{anchored} was not found."
CHUNK_RETRY = (
    "Copy the chunk's context (' ') and removed ('-') lines exactly from the file, then "
    "send the whole patch again."
)
CHUNK_AMBIGUOUS = (
    _NOT_APPLIED + "in {path}, chunk {index} of {count}{anchored} matches {n} places "
    "({lines}). Add an '@@' line with the enclosing def or class, or more context lines, "
    "so it matches one place; then send the whole patch again."
)
CHUNK_APPLIED = (
    _NOT_APPLIED + "in {path}, chunk {index} of {count}{anchored} is already in the file "
    "at {where}: its new lines are there and its removed lines are not. Leave that chunk "
    "out and send the rest again, if there is a rest."
)
CHUNK_PLACEHOLDER = (
    _NOT_APPLIED + "in {path}, chunk {index} of {count} adds {line!r}, which stands for "
    "code left out; applying it would delete that code. Write the lines out in full."
)
ANCHOR_NOT_FOUND = (
    _NOT_APPLIED + "in {path}, the line '@@ {anchor}' of chunk {index} of {count} matches "
    "no line of the file{after}. An '@@' line repeats a line that comes before the chunk, "
    "such as its def or class line; copy it from the file and send the whole patch again."
)
PURE_ADDITION = (
    _NOT_APPLIED + "in {path}, chunk {index} of {count} only adds lines and has neither "
    "context lines nor an '@@' line, so where they go is unknown. Add the line above them "
    "as a context line (' ' and the line) and send the whole patch again."
)


class Where(NamedTuple):
    """Which chunk of which file, for messages (a tuple: one is made per chunk)."""

    path: str
    number: int  # of the chunk, from 1
    of: int  # chunks in the update
    chunk: Chunk

    def format(self, template: str, **fields: object) -> str:
        anchored = f" (under '@@ {self.chunk.anchors[-1]}')" if self.chunk.anchors else ""
        return template.format(
            path=self.path, index=self.number, count=self.of, anchored=anchored, **fields
        )
