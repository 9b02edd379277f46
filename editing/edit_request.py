"""Reading one edit request: the checks that need no file, and where old is.

Old and new are read with CRLF as LF (``lf``); ``check_request`` refuses
what is wrong whatever the file says (an empty old, old equal to new, a
placeholder in new). ``locate_request`` then finds old with the matcher as
the model wrote it, else with the line-number prefixes it carries stripped,
else without the Markdown fences or diff prefixes both old and new carry,
and says which reading it took in a note for the model.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import diff_prefixes, elision, explain, fences, line_numbers, matcher, messages
from .document import Document
from .errors import InvalidRequest, NoChange, Placeholder
from .escapes import unescape
from .matches import Located


@dataclass(frozen=True)
class Edit:
    """Replace the text quoted as ``old`` with ``new``."""

    old: str
    new: str
    replace_all: bool = False


def lf(text: str) -> str:
    """``text`` with CRLF endings read as LF (a search for a CR first: most text has none)."""
    return text.replace("\r\n", "\n") if "\r" in text else text


def check_request(old: str, new: str, path: str) -> None:
    """Refuse requests that are wrong whatever the file says."""
    if not old:
        raise InvalidRequest(messages.EMPTY_OLD.format(path=path), path=path)
    if old == new:
        raise NoChange(messages.NO_CHANGE.format(path=path), path=path)
    unpaired = elision.unpaired(old, new)
    if unpaired:
        raise Placeholder(messages.PLACEHOLDER.format(path=path, line=unpaired[0]), path=path)


def check_content_dots(old: str, new: str, path: str) -> None:
    """Refuse an elision line of new whose only twin in old is a bare ``...``
    that, old being found as a whole, is the file's own text (see
    ``elision.unpaired``)."""
    unpaired = elision.unpaired(old, new, dots_are_content=True)
    if unpaired:
        raise Placeholder(messages.PLACEHOLDER.format(path=path, line=unpaired[0]), path=path)


def locate_request(
    doc: Document, old: str, new: str, path: str
) -> tuple[Located | None, str, str, list[str]]:
    """Matches of old, else of old without the line-number prefixes it carries.

    Returns the matches (None when there are none; only the first ones
    the refusal would list, with their count, when there are more), old and new as they were
    read (prefixes stripped: they are no part of the text; new unescaped
    like old), and notes for the model.
    """
    located = matcher.locate(doc, old, limit=explain.LISTED)
    notes = []
    if located is None:
        stripped = line_numbers.strip_request(old, new)
        if stripped is not None:
            old, new, _ = stripped
            notes.append(messages.LINE_NUMBERS_NOTE)
            located = matcher.locate(doc, old, limit=explain.LISTED)
    if located is None:
        unwrapped = _unwrapped(doc, old, new, path)
        if unwrapped is not None:
            located, old, new, note = unwrapped
            notes.append(note)
    if located is not None and located.escapes:
        new = unescape(new, located.escapes)
    return located, old, new, notes


def _unwrapped(
    doc: Document, old: str, new: str, path: str
) -> tuple[Located, str, str, str] | None:
    """Old and new found without the Markdown fences or diff prefixes both carry
    (see ``fences`` and ``diff_prefixes``), with a note saying which."""
    unfenced = fences.strip_request(old, new)
    if unfenced is not None:
        located = matcher.locate(doc, unfenced[0], limit=explain.LISTED)
        if located is not None:
            check_request(unfenced[0], unfenced[1], path)
            return located, unfenced[0], unfenced[1], messages.FENCES_NOTE
    unprefixed = diff_prefixes.strip_request(old, new)
    if unprefixed is not None:
        located = matcher.locate(doc, unprefixed[0], limit=explain.LISTED)
        if located is not None and diff_prefixes.fits(doc, located):
            check_request(unprefixed[0], unprefixed[1], path)
            return located, unprefixed[0], unprefixed[1], messages.DIFF_PREFIXES_NOTE
    return None
