"""Search/replace edits: parse -> locate -> plan -> apply, all or nothing.

``apply_edits`` takes a file's text and one or more ``Edit``s, each located
in the original text, and returns the new text with a report, or raises an
``EditError`` and changes nothing. The guards run in this order for each
edit: request shape (empty old, old == new), placeholders in new, then
location (the ladder in ``matcher``; then the same with line-number
prefixes stripped, then without Markdown fences or diff prefixes around
both old and new; then elision), then "already applied" and uniqueness.
Reading a request and locating old is ``edit_request``'s job, each edit's
plan ``edit_plan``'s, and merging the plans of edits that share a line
``edit_overlaps``'s; this module holds the request and its result and
applies the merged plan in one place. Exact ``replace_all`` edits of one
line of text by another are written in one pass by ``line_swaps``, with
the same result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import line_swaps, messages, report
from .document import Document
from .edit_overlaps import without_overlaps
from .edit_plan import Plan, plan_edit
from .edit_request import Edit, check_request, lf
from .errors import EditError, InvalidRequest, NoChange, NotFound
from .matches import Level
from .report import LineRange


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
    # Where the first of ``regions`` starts in the old text (a character offset), so that
    # a caller can tell the line of an offset near it without counting from the start.
    first_region_at: int | None = None

    @property
    def message(self) -> str:
        what = f"replaced {self.replaced} occurrence{'s' if self.replaced != 1 else ''}"
        how = "; ".join(self.notes)
        summary = messages.APPLIED.format(path=self.path, what=what, how=f" ({how})" if how else "")
        return f"{summary}\n{self.diff}" if self.diff else summary


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
        old, new = lf(edit.old), lf(edit.new)
        try:
            check_request(old, new, path)
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
        first_region_at=swaps.first_at,
    )


def _apply_planned(
    doc: Document, edits: Sequence[Edit], path: str, *, created: bool = False
) -> EditResult:
    """``apply_edits`` the general way: a plan for each edit, then one report."""
    plans: list[tuple[int, Plan]] = []
    for index, edit in enumerate(edits, 1):
        try:
            plans.append((index, plan_edit(doc, edit, path)))
        except EditError as error:
            if len(edits) > 1:
                error.message = (
                    messages.EDIT_OF.format(index=index, count=len(edits))
                    + error.message
                    + messages.NOTHING_APPLIED
                )
            raise
    replacements = without_overlaps(doc, plans, path)
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
        first_region_at=description.first_at,
    )
