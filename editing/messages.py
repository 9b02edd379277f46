"""Every text the model reads from the engine, in one place.

Each message says what failed, where, and what to send next. Tests pin
these texts; change them here and in the tests together.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

NOT_FOUND = "Edit not applied to {path}: old was not found in the file."
NOT_FOUND_CLOSEST = "The closest text in the file is at {where}:"
NOT_FOUND_DIFFERS = "Where old differs from those lines:"
NOT_FOUND_RETRY = (
    "Copy old exactly from the file (view it again if it may have changed), then retry."
)
NOT_FOUND_NOTHING_CLOSE = (
    "Nothing in the file resembles it. View the file to see its current text, "
    "then retry with old copied from it."
)
AMBIGUOUS = (
    "Edit not applied to {path}: old matches {count} places{how} ({where}). "
    "Add surrounding lines to old until it matches exactly one place, "
    "or set replace_all to change every one."
)
ALREADY_APPLIED = (
    "Edit not applied to {path}: new is already in the file at {where}, so this edit "
    "was made before. Nothing to do; view the file if you expected something else."
)
PLACEHOLDER = (
    "Edit not applied to {path}: new contains {line!r}, which stands for code left out, "
    "and old has no such line, so applying it would delete that code. Write the full "
    "text in new, or put the same elision line in old too so it stands for the lines "
    "kept unchanged."
)
PLACEHOLDER_WRITE = (
    "File not written: {path}: the content contains {line!r}, which stands for code left "
    "out, so writing it would delete that code. Change the file with targeted edits "
    "instead, or send the complete content."
)
NO_CHANGE = "Edit not applied to {path}: old and new are identical. Put the text you want in new."
NO_CHANGE_IN_FILE_TERMS = (
    "Edit not applied to {path}: written in the file's own terms (indentation, quotes, "
    "line endings), new is exactly what the file already has. Nothing to do."
)
NO_CHANGE_WRITE = "File not written: {path} already has exactly this content. Nothing to do."
EMPTY_OLD = (
    "Edit not applied to {path}: old is empty, but the file is not. Quote the lines to "
    "replace in old; to insert, quote a nearby line as old and repeat it in new with "
    "the added lines."
)
MISSING_FILE = (
    "Edit not applied: {path} does not exist. Check the path, or create the file "
    "with its full content (an edit with an empty old creates it)."
)
OVERLAP = (
    "Edits {first} and {second} both change line {line} of {path}. Merge them into one "
    "edit, or make each touch separate lines. No edit was applied."
)
ELISION_DROPPED = (
    "Edit not applied to {path}: old uses {line!r} for lines left out, but new does not "
    "have the same elision lines, so it is unclear what becomes of those lines. Keep "
    "each elision line of old in new, or quote the lines in full."
)
ELISION_EDGE = (
    "Edit not applied to {path}: new adds text beyond the elision line {line!r} at the "
    "{edge} of old, so where it goes is unclear. Quote a real line there instead."
)
ELISION_GAP = (
    "Edit not applied to {path}: the elision line {line!r} would stand for {gap} lines "
    "(lines {first}-{last}), far more than the {quoted} lines quoted. Quote the lines "
    "you change as separate edits instead of eliding so much."
)
ELISION_AMBIGUOUS = (
    "Edit not applied to {path}: the text after an elision line occurs more than once in "
    "the block from line {line}, so which lines the elision stands for is unclear. Quote "
    "more lines after the elision line, or quote the text in full."
)
ELISION_NOT_FOUND = (
    "Edit not applied to {path}: old was not found in the file: its parts around the "
    "elision lines do not occur in this order within one block. Quote the lines in "
    "full, copied from the file."
)
ELISION_AMBIGUOUS_START = (
    "Edit not applied to {path}: old matches {count} places ({where}). Add surrounding "
    "lines to old until it matches exactly one place."
)
ELISION_ONLY = (
    "Edit not applied to {path}: old is only elision lines. Quote the real lines to change."
)
ELISION_REPLACE_ALL = (
    "Edit not applied to {path}: replace_all cannot be combined with elision lines in "
    "old. Quote the text in full, or send one edit per place."
)
DESTRUCTIVE_TRUNCATED = (
    "File not written: the content for {path} is the first {kept} of its {total} lines "
    "with the rest missing, as if the output was cut off. Change the file with targeted "
    "edits instead of rewriting it."
)
DESTRUCTIVE_DROPS = (
    "File not written: the content for {path} drops {dropped} of its {total} lines "
    "({share:.0%}). Change the file with targeted edits instead of rewriting it; to "
    "remove code, delete it with an edit that quotes it."
)
DESTRUCTIVE_LARGE = (
    "File not written: {path} has {total} lines, too many to rewrite whole safely. "
    "Change it with targeted edits."
)
INDENT_UNMAPPABLE = (
    "Edit not applied to {path}: the line {line!r} of new is indented less than the "
    "block it replaces, so it cannot be re-indented to the file's indentation. Send old "
    "and new with the file's exact indentation."
)
TYPOGRAPHIC_UNCERTAIN = (
    "Edit not applied to {path}: the file has {file_char} where old has {model_char!r}, "
    "and in the line {line!r} of new it is unclear whether that character was kept or "
    "written anew. Send old and new with the file's own characters (view the file to "
    "copy them)."
)
NO_EDITS = "Edit not applied to {path}: the request has no edits. Send at least one."
EDIT_OF = "Edit {index} of {count}: "
NOTHING_APPLIED = " No edit was applied."

LEVEL_NOTES = {
    "trailing whitespace": "after ignoring trailing whitespace",
    "indentation": "after ignoring indentation; new was re-indented to match the file",
    "punctuation": (
        "after treating curly quotes, dashes and special spaces as plain ASCII; "
        "new was written with the file's characters"
    ),
    "escapes": "after removing one level of backslash escaping from old and new",
}
LINE_NUMBERS_NOTE = "line-number prefixes copied from a numbered view were removed"
FENCES_NOTE = "the Markdown code fences around old and new were removed"
DIFF_PREFIXES_NOTE = "the diff prefixes (' ', '-', '+') on old's and new's lines were removed"
ELISION_NOTE = "elision lines in old and new kept the lines they stand for"
APPLIED = "Edited {path}: {what}{how}."


def char_name(text: str) -> str:
    """``'“' (U+201C LEFT DOUBLE QUOTATION MARK)`` for each character of ``text``."""
    return ", ".join(
        f"{char!r} (U+{ord(char):04X} {unicodedata.name(char, 'unnamed character')})"
        for char in text
    )


def line_span(first: int, last: int) -> str:
    return f"line {first}" if first == last else f"lines {first}-{last}"


def line_spans(
    spans: Sequence[tuple[int, int]], columns: Sequence[Sequence[int]] | None = None
) -> str:
    """``lines 3-4, 9-10`` for several places, ``line 3`` for one.

    ``columns`` gives, for each span, where the places on it start; a span
    holding several is written ``line 3, columns 5 and 12`` alone, else
    ``lines 3 (columns 5 and 12), 9``.
    """
    starts = [list(columns[index]) if columns else [] for index in range(len(spans))]
    if len(spans) == 1 and spans[0][0] == spans[0][1]:
        where = f"line {spans[0][0]}"
        return where + (f", columns {_and(starts[0])}" if len(starts[0]) > 1 else "")
    parts = []
    for (a, b), at in zip(spans, starts, strict=True):
        part = str(a) if a == b else f"{a}-{b}"
        parts.append(part + (f" (columns {_and(at)})" if len(at) > 1 else ""))
    return "lines " + ", ".join(parts)


def _and(numbers: Sequence[int]) -> str:
    """``5, 12 and 19``."""
    words = [str(n) for n in numbers]
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else words[0]


def numbered(first: int, lines: Sequence[str]) -> str:
    width = len(str(first + len(lines) - 1))
    return "\n".join(f"{first + i:>{width}}| {line}" for i, line in enumerate(lines))
