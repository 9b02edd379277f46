"""Search/replace edits: parse -> locate -> plan -> apply, all or nothing.

``apply_edits`` takes a file's text and one or more ``Edit``s, each located
in the original text, and returns the new text with a report, or raises an
``EditError`` and changes nothing. The guards run in this order for each
edit: request shape (empty old, old == new), placeholders in new, then
location (the ladder in ``matcher``; then the same with line-number
prefixes stripped, then without Markdown fences or diff prefixes around
both old and new; then elision), then "already applied" and uniqueness.
Exact ``replace_all`` edits of one line of text by another are written in
one pass by ``line_swaps``, with the same result.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import NoReturn

from . import (
    applied,
    diff_prefixes,
    elision,
    explain,
    fences,
    line_numbers,
    line_swaps,
    matcher,
    messages,
    report,
)
from .document import Document
from .errors import (
    AlreadyApplied,
    Ambiguous,
    EditError,
    InvalidRequest,
    NoChange,
    NotFound,
    Placeholder,
)
from .escapes import unescape
from .matcher import Level, Located, Match
from .replacement import Replacement, build
from .report import LineRange
from .split_edit import plan_split_edit


@dataclass(frozen=True)
class Edit:
    """Replace the text quoted as ``old`` with ``new``."""

    old: str
    new: str
    replace_all: bool = False


@dataclass(frozen=True)
class EditResult:
    """An applied request: the new text and what the model should be told."""

    path: str
    text: str
    level: Level
    replaced: int
    changed: tuple[LineRange, ...]
    diff: str
    notes: tuple[str, ...]
    regions: tuple[LineRange, ...] = ()  # the lines of the old text that were replaced
    created: bool = False
    # The lines of the new text written in place of each of ``regions`` (same order).
    written: tuple[LineRange, ...] = ()

    @property
    def message(self) -> str:
        what = f"replaced {self.replaced} occurrence{'s' if self.replaced != 1 else ''}"
        how = "; ".join(self.notes)
        summary = messages.APPLIED.format(path=self.path, what=what, how=f" ({how})" if how else "")
        return f"{summary}\n{self.diff}" if self.diff else summary


@dataclass(frozen=True)
class _Plan:
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


def apply_edit(
    text: str | None, old: str, new: str, *, replace_all: bool = False, path: str = "file"
) -> EditResult:
    """Apply one edit to ``text`` (None when the file does not exist)."""
    return apply_edits(text, [Edit(old, new, replace_all)], path=path)


def apply_edits(text: str | None, edits: Sequence[Edit], *, path: str = "file") -> EditResult:
    """Apply every edit, each located in the original ``text``, or none of them.

    ``text`` is None when the file does not exist: then only a single edit
    with an empty old can apply, and it creates the file.
    """
    created = text is None
    if text is None:
        if len(edits) != 1 or edits[0].old:
            raise NotFound(messages.MISSING_FILE.format(path=path), path=path)
        text = ""
    if not edits:
        raise InvalidRequest(messages.NO_EDITS.format(path=path), path=path)
    doc = Document(text)
    swapped = _replace_all_in_lines(doc, edits, path)
    if swapped is not None:
        return swapped
    return _apply_planned(doc, edits, path, created=created)


def _replace_all_in_lines(doc: Document, edits: Sequence[Edit], path: str) -> EditResult | None:
    """One-line ``replace_all`` edits written in one pass (``line_swaps``), when they are."""
    if not doc.original or not all(edit.replace_all for edit in edits):
        return None
    if any("\n" in edit.old or "\n" in edit.new for edit in edits):
        return None  # not one line each: checked here before the request checks run twice
    pairs = []
    for edit in edits:
        old, new = _lf(edit.old), _lf(edit.new)
        try:
            _check_request(old, new, path)
        except EditError:
            return None  # refused by the general path, in its words
        pairs.append((old, new))
    swaps = line_swaps.replace_all(doc, pairs, path)
    if swaps is None:
        return None
    return EditResult(
        path=path,
        text=swaps.text,
        level=Level.EXACT,
        replaced=swaps.replaced,
        changed=swaps.lines,
        diff=swaps.diff,
        notes=(),
        regions=swaps.lines,
        written=swaps.lines,
    )


def _apply_planned(
    doc: Document, edits: Sequence[Edit], path: str, *, created: bool = False
) -> EditResult:
    """``apply_edits`` the general way: a plan for each edit, then one report."""
    plans: list[tuple[int, _Plan]] = []
    for index, edit in enumerate(edits, 1):
        try:
            plans.append((index, _plan(doc, edit, path)))
        except EditError as error:
            if len(edits) > 1:
                error.message = (
                    messages.EDIT_OF.format(index=index, count=len(edits))
                    + error.message
                    + messages.NOTHING_APPLIED
                )
            raise
    replacements = _without_overlaps(doc, plans, path)
    new_text = doc.replace([(r.start, r.end, r.text) for r in replacements])
    if new_text == doc.original:
        raise NoChange(messages.NO_CHANGE_IN_FILE_TERMS.format(path=path), path=path)
    notes = list(dict.fromkeys(note for _, plan in plans for note in plan.notes))
    description = report.describe(doc, replacements, path)
    return EditResult(
        path=path,
        text=new_text,
        level=max(plan.level for _, plan in plans),
        replaced=sum(plan.occurrences for _, plan in plans),
        changed=tuple(description.changed),
        diff=description.diff,
        notes=tuple(notes),
        regions=tuple(description.replaced),
        created=created,
        written=tuple(description.written),
    )


def _plan(doc: Document, edit: Edit, path: str) -> _Plan:
    old, new = _lf(edit.old), _lf(edit.new)
    if not old and not doc.original:
        return _Plan([Replacement(0, 0, new)], Level.EXACT, [], 1)
    _check_request(old, new, path)
    located, old, new, notes = _locate(doc, old, new, path)
    if located is None:
        return _plan_unmatched(doc, old, new, path, notes=notes, replace_all=edit.replace_all)
    _check_content_dots(located.old, new, path)
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
    return _Plan(replacements, level, notes, len(matches), spans)


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


def _lf(text: str) -> str:
    """``text`` with CRLF endings read as LF (a search for a CR first: most text has none)."""
    return text.replace("\r\n", "\n") if "\r" in text else text


def _plan_unmatched(
    doc: Document, old: str, new: str, path: str, *, notes: list[str], replace_all: bool
) -> _Plan:
    """Old as a whole is nowhere: it may elide lines; else it was applied or is wrong."""
    if not elision.markers(old):
        _raise_not_found(doc, old, new, path)
    if replace_all:
        raise InvalidRequest(messages.ELISION_REPLACE_ALL.format(path=path), path=path)
    replacements, level = plan_split_edit(doc, old, new, path)
    return _Plan(replacements, level, [*notes, messages.ELISION_NOTE], 1)


def _check_request(old: str, new: str, path: str) -> None:
    """Refuse requests that are wrong whatever the file says."""
    if not old:
        raise InvalidRequest(messages.EMPTY_OLD.format(path=path), path=path)
    if old == new:
        raise NoChange(messages.NO_CHANGE.format(path=path), path=path)
    unpaired = elision.unpaired(old, new)
    if unpaired:
        raise Placeholder(messages.PLACEHOLDER.format(path=path, line=unpaired[0]), path=path)


def _check_content_dots(old: str, new: str, path: str) -> None:
    """Refuse an elision line of new whose only twin in old is a bare ``...``
    that, old being found as a whole, is the file's own text (see
    ``elision.unpaired``)."""
    unpaired = elision.unpaired(old, new, dots_are_content=True)
    if unpaired:
        raise Placeholder(messages.PLACEHOLDER.format(path=path, line=unpaired[0]), path=path)


def _locate(
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
            _check_request(unfenced[0], unfenced[1], path)
            return located, unfenced[0], unfenced[1], messages.FENCES_NOTE
    unprefixed = diff_prefixes.strip_request(old, new)
    if unprefixed is not None:
        located = matcher.locate(doc, unprefixed[0], limit=explain.LISTED)
        if located is not None and diff_prefixes.fits(doc, located):
            _check_request(unprefixed[0], unprefixed[1], path)
            return located, unprefixed[0], unprefixed[1], messages.DIFF_PREFIXES_NOTE
    return None


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


def _without_overlaps(
    doc: Document, plans: list[tuple[int, _Plan]], path: str
) -> list[Replacement]:
    """All replacements in file order, those of several edits on one line merged.

    Replacements are whole lines, so two edits on one line (a minified file,
    a long call) share their region. They are merged when the texts the
    edits matched do not overlap and each edit left its line as it was
    outside its own match: the line then takes each edit's new text at its
    own place, exactly as applying them one after the other would. Edits
    whose matched texts overlap are refused, and so are edits that rewrote
    more of a shared line than their match (a drift undone on the whole line).
    """
    tagged = sorted(
        (
            _Tagged(rep, plan.span(number), index)
            for index, plan in plans
            for number, rep in enumerate(plan.replacements)
        ),
        key=lambda item: (item.rep.start, item.rep.end),
    )
    merged: list[Replacement] = []
    cluster: list[_Tagged] = []
    cluster_end = -1
    for item in tagged:
        rep = item.rep
        if cluster and (rep.start < cluster_end or rep.start == cluster_end == rep.end):
            cluster.append(item)
        else:
            if cluster:
                merged.append(_merged(doc, cluster, path))
            cluster = [item]
        cluster_end = max(cluster_end, rep.end) if len(cluster) > 1 else rep.end
    if cluster:
        merged.append(_merged(doc, cluster, path))
    return merged


@dataclass(frozen=True)
class _Tagged:
    rep: Replacement
    span: tuple[int, int]  # the text the edit matched (view offsets)
    edit: int  # which edit of the request, from 1


_OVERLAPPING_TEXT = (
    "Edits {first} and {second} change the same text on line {line} of {path}: the text "
    "edit {second} quotes overlaps the text edit {first} quotes. Merge them into one edit "
    "(old covering both, new with both changes). No edit was applied."
)


def _merged(doc: Document, cluster: list[_Tagged], path: str) -> Replacement:
    """One replacement for replacements sharing lines (see ``_without_overlaps``)."""
    if len(cluster) == 1:
        return cluster[0].rep
    by_span = sorted(cluster, key=lambda item: item.span)
    for before, after in pairwise(by_span):
        if after.span[0] < before.span[1]:
            _refuse_overlap(doc, before, after, path, _OVERLAPPING_TEXT)
    original = doc.original
    start = min(item.rep.start for item in cluster)
    last = max(cluster, key=lambda item: item.rep.end)
    end = last.rep.end
    parts = []
    cursor = doc.original_offset(start)
    for item in by_span:
        rep = item.rep
        a, b = doc.original_offset(item.span[0]), doc.original_offset(item.span[1])
        head = original[doc.original_offset(rep.start) : a]
        tail = original[b : doc.original_offset(rep.end)]
        text = rep.text
        kept = len(text) >= len(head) + len(tail) and text.startswith(head) and text.endswith(tail)
        if not kept:
            # The edit rewrote its line beyond its match: there is no telling
            # how the other edit's change would read in it.
            other = next((o for o in cluster if o.edit != item.edit), item)
            _refuse_overlap(doc, other, item, path, messages.OVERLAP)
        parts += [original[cursor:a], text[len(head) : len(text) - len(tail)]]
        cursor = b
    parts.append(original[cursor : doc.original_offset(end)])
    return Replacement(start, end, "".join(parts), last.rep.ends_line)


def _refuse_overlap(
    doc: Document, one: _Tagged, other: _Tagged, path: str, message: str
) -> NoReturn:
    line = doc.line_number(max(one.span[0], other.span[0]))
    first, second = sorted((one.edit, other.edit))
    raise InvalidRequest(
        message.format(first=first, second=second, line=line, path=path), path=path, line=line
    )
