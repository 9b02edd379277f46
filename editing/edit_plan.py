"""One edit's plan: the matches of old that count, as replacements of whole lines.

``plan_edit`` locates old (``edit_request``), refuses what the matches
make wrong (several places without ``replace_all``, new already in the
file, a start inside a line that reads like another line of the edit),
fits new to the matches (its final newline, a deleted line's newline),
groups the matches so that no two groups share a line, and builds one
``Replacement`` for each group. Old that is found nowhere as a whole may
elide lines (``split_edit``); else the refusal says why.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn

from . import applied, elision, explain, matcher, messages
from .document import Document
from .edit_request import Edit, check_content_dots, check_request, lf, locate_request
from .errors import AlreadyApplied, Ambiguous, InvalidRequest, NotFound
from .matches import Level, Located, Match
from .replacement import Replacement, build
from .split_edit import plan_split_edit


@dataclass(frozen=True)
class Plan:
    """What one edit changes: its replacements, the level that found old, notes
    for the model and how many places it replaces."""

    replacements: list[Replacement]
    level: Level
    notes: list[str]
    occurrences: int
    # The text each replacement was asked to change (view offsets, from its
    # first match's start to its last match's end); its whole region when unknown.
    spans: list[tuple[int, int]] | None = None

    def span(self, index: int) -> tuple[int, int]:
        if self.spans is None:
            rep = self.replacements[index]
            return rep.start, rep.end
        return self.spans[index]


def plan_edit(doc: Document, edit: Edit, path: str) -> Plan:
    old, new = lf(edit.old), lf(edit.new)
    if not old and not doc.original:
        return Plan([Replacement(0, 0, new)], Level.EXACT, [], 1)
    check_request(old, new, path)
    located, old, new, notes = locate_request(doc, old, new, path)
    if located is None:
        return _plan_unmatched(doc, old, new, path, notes=notes, replace_all=edit.replace_all)
    check_content_dots(located.old, new, path)
    if not located.complete and (edit.replace_all or applied.all_inside(doc, located, new)):
        matches = matcher.find(doc, located.old, located.level)
        located = dataclasses.replace(located, matches=tuple(matches), total=len(matches))

    matches = _not_yet_applied(doc, located, new, edit.replace_all, path)
    if located.count > 1 and not edit.replace_all:
        raise Ambiguous(
            explain.ambiguous(doc, located, matches, path, count=located.count),
            path=path,
            line=doc.line_number(matches[0].start),
        )
    new = _match_final_newline(doc, located.old, new, matches)
    if not new:
        matches = [_whole_lines(doc, m) for m in matches]
    level = located.reported_level
    if level > Level.EXACT:
        notes.append(messages.LEVEL_NOTES[level.label])
    groups = _by_line(doc, matches)
    for group in groups:
        _check_inside_start(doc, group[0], located.old, new, path)
    replacements = [build(doc, group, *_quoted(group, located.old, new), path) for group in groups]
    spans = [(group[0].start, group[-1].end) for group in groups]
    return Plan(replacements, level, notes, len(matches), spans)


def _quoted(group: list[Match], old: str, new: str) -> tuple[str, str]:
    """Old and new for a group of matches: a multi-line match that starts inside
    a line ends at its last line's text, so old's final newline, and new's,
    are no part of it."""
    if group[0].fragment and "\n" in old and old.endswith("\n") and new.endswith("\n"):
        return old[:-1], new[:-1]
    return old, new


_FIRST_LINE_LIKE_ANOTHER = (
    "Edit not applied to {path}: old starts inside line {line}, and that line, with the "
    "text before old on it, reads like another line of old or new, so it is unclear which "
    "line new's lines stand for. Quote old from the start of line {line} (its indentation "
    "included) and send the edit again."
)


def _check_inside_start(doc: Document, match: Match, old: str, new: str, path: str) -> None:
    """Refuse a multi-line match starting inside a line whose first line, with the
    file's text before it, reads like a later line of old or new: the write pairs
    old's and new's lines by their text, and would pair that line with another."""
    if not match.fragment or "\n" not in old.rstrip("\n"):
        return
    prefix = doc.view[doc.line_start(match.start) : match.start]
    old_lines, new_lines = old.rstrip("\n").split("\n"), new.rstrip("\n").split("\n")
    later = {line.strip() for line in old_lines[1:] + new_lines[1:]}
    firsts = {(prefix + old_lines[0]).strip(), (prefix + new_lines[0]).strip()}
    if firsts & later:
        line = doc.line_number(match.start)
        raise InvalidRequest(_FIRST_LINE_LIKE_ANOTHER.format(path=path, line=line), path=path)


def _plan_unmatched(
    doc: Document, old: str, new: str, path: str, *, notes: list[str], replace_all: bool
) -> Plan:
    """Old as a whole is nowhere: it may elide lines; else it was applied or is wrong."""
    if not elision.markers(old):
        _raise_not_found(doc, old, new, path)
    if replace_all:
        raise InvalidRequest(messages.ELISION_REPLACE_ALL.format(path=path), path=path)
    replacements, level = plan_split_edit(doc, old, new, path)
    return Plan(replacements, level, [*notes, messages.ELISION_NOTE], 1)


def _by_line(doc: Document, matches: list[Match]) -> list[list[Match]]:
    """Matches grouped so that no two groups touch the same line."""
    groups: list[list[Match]] = []
    group_end = -1
    for match in matches:
        if groups and doc.line_start(match.start) < group_end:
            groups[-1].append(match)
        else:
            groups.append([match])
        group_end = match.end if match.ends_line else doc.line_end(match.end) + 1
    return groups


def _match_final_newline(doc: Document, old: str, new: str, matches: Sequence[Match]) -> str:
    """Give ``new`` the final newline ``old`` has, when the model dropped or added one."""
    if not new:
        return new
    if old.endswith("\n") and not new.endswith("\n"):
        return new + "\n"
    if not old.endswith("\n") and new.endswith("\n"):
        followed_by_newline = all(doc.view.startswith("\n", m.end) for m in matches)
        if followed_by_newline:
            return new[:-1]
    return new


def _whole_lines(doc: Document, match: Match) -> Match:
    """A deletion of a line's whole text deletes the line, not just its text."""
    followed_by_newline = not match.ends_line and doc.view.startswith("\n", match.end)
    if followed_by_newline and doc.starts_line(match.start):
        start = doc.line_start(match.start)
        return dataclasses.replace(match, start=start, end=match.end + 1, ends_line=True)
    return match


def _not_yet_applied(
    doc: Document, located: Located, new: str, replace_all: bool, path: str
) -> list[Match]:
    """The matches of old that do not sit inside a copy of new already in the file.

    Resending ``x`` -> ``x + 1`` to a file that has ``x + 1`` finds ``x``
    inside it; applying would give ``x + 1 + 1``.
    """
    matches = list(located.matches)
    if not located.complete:
        return matches  # only the first of many places, not all inside copies of new
    inside = applied.inside_new(doc, located, new)
    remaining = [m for m in matches if m not in inside]
    if inside and (not remaining or (not replace_all and len(matches) == 1)):
        _raise_already_applied(doc, next(iter(inside.values())), path)
    if replace_all:
        return _non_overlapping(remaining)
    return matches


def _non_overlapping(matches: list[Match]) -> list[Match]:
    kept: list[Match] = []
    for match in matches:
        if not kept or match.start >= kept[-1].end:
            kept.append(match)
    return kept


def _raise_not_found(doc: Document, old: str, new: str, path: str) -> NoReturn:
    """Raise AlreadyApplied when new is there and old is not, else NotFound with a hint."""
    copy = applied.copy_of_new(doc, old, new)
    if copy is not None:
        _raise_already_applied(doc, copy, path)
    message, line = explain.not_found(doc, old, path)
    raise NotFound(message, path=path, line=line)


def _raise_already_applied(doc: Document, copy: Match, path: str) -> NoReturn:
    """Refuse an edit whose new text is already in the file, at ``copy``."""
    where = explain.lines_of(doc, [copy])
    line = doc.line_number(copy.start)
    message = messages.ALREADY_APPLIED.format(path=path, where=where)
    raise AlreadyApplied(message, path=path, line=line)
