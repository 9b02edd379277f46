"""Unified-diff line prefixes on a request's old and new text.

A model that thinks in diffs sometimes sends ``old`` as the ``-`` and context
lines of a hunk and ``new`` as its ``+`` and context lines, prefixes and all.
They are stripped only when they cannot be the file's text: every line of
old starts with `` `` or ``-``, every line of new with `` `` or ``+``, there is
at least one ``-`` or ``+`` line, the context lines of both are the same,
and the stripped old is found once, as whole lines, where the prefixed one
is not found at all. A YAML list (``- item`` in new too) or a patch file
whose ``+`` and ``-`` lines are content never fits.
"""

from __future__ import annotations

from .document import Document
from .matches import Located


def _parse(text: str, marker: str) -> tuple[list[str], list[str], bool] | None:
    """Stripped lines, context lines, and whether some line carried ``marker``."""
    lines = text.split("\n")
    final = lines[-1] == ""
    if final:
        lines.pop()
    stripped, context, marked = [], [], False
    for line in lines:
        if not line:  # an empty context line whose space was trimmed
            stripped.append("")
            context.append("")
        elif line[0] == " ":
            stripped.append(line[1:])
            context.append(line[1:])
        elif line[0] == marker:
            stripped.append(line[1:])
            marked = True
        else:
            return None
    if final:
        stripped.append("")
    return stripped, context, marked


def strip_request(old: str, new: str) -> tuple[str, str] | None:
    """``old`` and ``new`` without diff prefixes, if both carry them as a hunk would."""
    parsed_old, parsed_new = _parse(old, "-"), _parse(new, "+")
    if parsed_old is None or parsed_new is None:
        return None
    old_lines, old_context, removes = parsed_old
    new_lines, new_context, adds = parsed_new
    if not (removes or adds) or old_context != new_context:
        return None
    stripped_old = "\n".join(old_lines)
    if not stripped_old.strip():
        return None
    return stripped_old, "\n".join(new_lines)


def fits(doc: Document, located: Located) -> bool:
    """Whether the stripped old was found once, from a line's start to a line's end."""
    if located.count != 1:
        return False
    match = located.matches[0]
    view = doc.view
    ends_line = match.ends_line or match.end == len(view) or view[match.end] == "\n"
    return doc.starts_line(match.start) and ends_line
