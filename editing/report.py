"""What an applied edit did: changed line ranges and a unified diff for the model.

``describe`` computes both from the replacements alone (plus a few lines of
context), never by diffing whole files, so reporting on a 100k-line file
costs about as much as the edit itself. Each replacement's lines are aligned
once: by the line diff its text was written from (only the lines that diff
changed are compared again, in the file's terms), and the lines between and
around replacements are the same on both sides. ``text_diff`` diffs whole
texts, for what has no replacements: a whole-file write, a file a patch adds,
deletes or touches twice. The hunks of a replacement's diff are written
from its opcodes by ``unified_hunks``.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from .document import Document
from .line_diff import Opcode, line_opcodes, merged
from .replacement import Replacement
from .unified_hunks import CONTEXT, unified_hunks


@dataclass(frozen=True, slots=True)
class LineRange:
    """Lines ``start``..``end`` (1-based, inclusive) of the new text; empty when end < start."""

    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _Region:
    replacement: Replacement
    old_start: int  # 1-based line number in the old text
    old_lines: list[str]
    new_start: int
    new_lines: list[str]
    opcodes: list[Opcode]  # old_lines -> new_lines


def _lines(text: str) -> list[str]:
    if not text:
        return []
    return text.replace("\r\n", "\n").removesuffix("\n").split("\n")


def _old_lines(view: str, rep: Replacement) -> list[str]:
    if rep.start == rep.end:
        return []
    lines = view[rep.start : rep.end].split("\n")
    if rep.ends_line:
        lines.pop()
    return lines


def _new_lines(rep: Replacement) -> list[str]:
    """The lines ``rep.text`` puts in place of the replaced ones.

    A replacement that stops before its last line's newline keeps that
    newline: its text is that line's new text, one line even when empty.
    """
    if rep.ends_line or rep.start == rep.end:
        return _lines(rep.text)
    return rep.text.replace("\r\n", "\n").split("\n")


def _regions(doc: Document, replacements: list[Replacement]) -> list[_Region]:
    regions = []
    shift = 0
    line = 1
    counted_to = 0
    for rep in sorted(replacements, key=lambda r: r.start):
        line += doc.view.count("\n", counted_to, rep.start)
        counted_to = rep.start
        if _is_line_swap(doc.view, rep):
            # One line's text for another (each line of a one-line replace_all).
            old_lines, new_lines = [doc.view[rep.start : rep.end]], [rep.text]
            opcodes = line_opcodes(old_lines, new_lines)
        else:
            old_lines, new_lines = rep.lines or (_old_lines(doc.view, rep), _new_lines(rep))
            opcodes = _aligned(old_lines, new_lines, rep.opcodes)
        regions.append(_Region(rep, line, old_lines, line + shift, new_lines, opcodes))
        shift += len(new_lines) - len(old_lines)
    return regions


def _is_line_swap(view: str, rep: Replacement) -> bool:
    """Whether ``rep`` puts one line's text (no newline) in place of another's."""
    return (
        not rep.ends_line
        and rep.start != rep.end
        and "\n" not in rep.text
        and "\r" not in rep.text
        and view.find("\n", rep.start, rep.end) < 0
    )


def _aligned(
    old_lines: list[str], new_lines: list[str], written: tuple[Opcode, ...] | None
) -> list[Opcode]:
    """The line diff of a replacement: the one it was written from, with the
    lines it changed compared again as written (drift undone, a changed line
    may be the file's own again); a fresh one when there is none to start from."""
    if len(old_lines) == 1 == len(new_lines):
        return line_opcodes(old_lines, new_lines)  # one line for one: whatever was written
    if not written or written[-1][2] != len(old_lines) or written[-1][4] != len(new_lines):
        return line_opcodes(old_lines, new_lines)
    opcodes: list[Opcode] = []
    as_written = True  # every change is still one change of those lines
    for opcode in written:
        tag, i1, i2, j1, j2 = opcode
        if tag == "equal":
            if old_lines[i1:i2] != new_lines[j1:j2]:
                return line_opcodes(old_lines, new_lines)
            opcodes.append(opcode)
            continue
        if i2 - i1 == 1 == j2 - j1 and old_lines[i1] != new_lines[j1]:
            opcodes.append(opcode)  # one line for another, still changed
            continue
        again = line_opcodes(old_lines[i1:i2], new_lines[j1:j2])
        as_written = as_written and len(again) == 1 and again[0][0] == tag
        opcodes += [(t, a1 + i1, a2 + i1, b1 + j1, b2 + j1) for t, a1, a2, b1, b2 in again]
    return opcodes if as_written else merged(opcodes)


@dataclass(frozen=True)
class Description:
    """What replacements did: line ranges of the old text they replaced, the
    ranges of the new text that differ, a unified diff, and the ranges of the
    new text each replacement wrote (one for each of ``replaced``)."""

    replaced: list[LineRange]
    changed: list[LineRange]
    diff: str
    written: list[LineRange]
    first_at: int | None  # where the first of ``replaced`` starts in ``doc.original``


def describe(
    doc: Document, replacements: list[Replacement], path: str, new_path: str | None = None
) -> Description:
    """Describe ``replacements`` of ``doc`` in one pass.

    ``new_path`` labels the new side when the file was also moved.
    """
    regions = _regions(doc, replacements)
    replaced = [LineRange(r.old_start, r.old_start + len(r.old_lines) - 1) for r in regions]
    written = [LineRange(r.new_start, r.new_start + len(r.new_lines) - 1) for r in regions]
    diff = _unified_diff(doc, regions, path, new_path or path)
    first_at = doc.original_line_start(regions[0].replacement.start) if regions else None
    return Description(replaced, _changed_ranges(regions), diff, written, first_at)


def _changed_ranges(regions: list[_Region]) -> list[LineRange]:
    """The lines of the new text that differ from the old, region by region."""
    ranges = []
    for region in regions:
        for tag, _i1, _i2, j1, j2 in region.opcodes:
            if tag != "equal":
                ranges.append(LineRange(region.new_start + j1, region.new_start + j2 - 1))
    return ranges


def _unified_diff(doc: Document, regions: list[_Region], path: str, new_path: str) -> str:
    """A unified diff of the replacements with ``CONTEXT`` lines around each hunk."""
    if not regions:
        return ""
    groups: list[list[_Region]] = [[regions[0]]]
    for region in regions[1:]:
        last = groups[-1][-1]
        if region.old_start - (last.old_start + len(last.old_lines)) <= 2 * CONTEXT:
            groups[-1].append(region)
        else:
            groups.append([region])
    out = [f"--- {path}\n", f"+++ {new_path}\n"]
    for group in groups:
        out.extend(_group_diff(doc, group))
    return "".join(out)


_ONE_FOR_ONE: list[Opcode] = [("replace", 0, 1, 0, 1)]


def _group_diff(doc: Document, group: list[_Region]) -> list[str]:
    if all(region.opcodes == _ONE_FOR_ONE for region in group):
        return _line_swaps_diff(doc, group)
    return _windowed_diff(doc, group)


def _line_swaps_diff(doc: Document, group: list[_Region]) -> list[str]:
    """The hunk ``_windowed_diff`` writes for a group whose regions each
    change one line into another (each match of a one-line ``replace_all``),
    written in one pass: the group is one hunk (no gap in it is longer than
    twice the context), each run of neighbouring changed lines its old lines
    then its new ones."""
    first, last = group[0], group[-1]
    before = lines_before(doc.view, first.replacement.start, CONTEXT)
    after = lines_after(doc.view, _line_after(doc, last), CONTEXT)
    body = [f" {line}\n" for line in before]
    removed: list[str] = []
    added: list[str] = []
    end = 0  # view offset of the line after the previous region
    for region in group:
        if removed and region.replacement.start != end:
            body += removed
            body += added
            removed, added = [], []
        if region is not first:
            body += [f" {line}\n" for line in _lines(doc.view[end : region.replacement.start])]
        removed.append(f"-{region.old_lines[0]}\n")
        added.append(f"+{region.new_lines[0]}\n")
        end = _line_after(doc, region)
    body += removed
    body += added
    body += [f" {line}\n" for line in after]
    old_length = last.old_start - first.old_start + 1 + len(before) + len(after)
    new_length = old_length + last.new_start - first.new_start - last.old_start + first.old_start
    old_range = f"{first.old_start - len(before)},{old_length}"
    new_range = f"{first.new_start - len(before)},{new_length}"
    return [f"@@ -{old_range} +{new_range} @@\n", *body]


def _windowed_diff(doc: Document, group: list[_Region]) -> list[str]:
    first, last = group[0], group[-1]
    before = lines_before(doc.view, first.replacement.start, CONTEXT)
    after = lines_after(doc.view, _line_after(doc, last), CONTEXT)
    old_window, new_window = list(before), list(before)
    opcodes: list[Opcode] = [("equal", 0, len(before), 0, len(before))]
    for previous, region in zip([None, *group], group, strict=False):
        if previous is not None:
            between = _lines(doc.view[_line_after(doc, previous) : region.replacement.start])
            i, j = len(old_window), len(new_window)
            opcodes.append(("equal", i, i + len(between), j, j + len(between)))
            old_window += between
            new_window += between
        i, j = len(old_window), len(new_window)
        opcodes += [(t, i1 + i, i2 + i, j1 + j, j2 + j) for t, i1, i2, j1, j2 in region.opcodes]
        old_window += region.old_lines
        new_window += region.new_lines
    i, j = len(old_window), len(new_window)
    opcodes.append(("equal", i, i + len(after), j, j + len(after)))
    old_window += after
    new_window += after
    old_offset = first.old_start - len(before) - 1
    new_offset = first.new_start - len(before) - 1
    return unified_hunks(old_window, new_window, merged(opcodes), (old_offset, new_offset))


def _line_after(doc: Document, region: _Region) -> int:
    """View offset of the line after ``region`` (regions may stop short of their newline)."""
    rep = region.replacement
    return rep.end if rep.ends_line or rep.start == rep.end else rep.end + 1


def lines_before(view: str, offset: int, count: int) -> list[str]:
    """Up to ``count`` whole lines ending just before the line start ``offset``."""
    lines: list[str] = []
    end = offset - 1
    while len(lines) < count and end >= 0:
        start = view.rfind("\n", 0, end) + 1
        lines.append(view[start:end])
        end = start - 1
    lines.reverse()
    return lines


def lines_after(view: str, offset: int, count: int) -> list[str]:
    """Up to ``count`` whole lines from the line start ``offset`` on."""
    lines: list[str] = []
    while len(lines) < count and offset < len(view):
        end = view.find("\n", offset)
        end = len(view) if end < 0 else end
        lines.append(view[offset:end])
        offset = end + 1
    return lines


_LINE_END = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")


def diff_lines(text: str) -> list[str]:
    """``text``'s lines with their endings, split where an editor breaks lines: at
    ``\n``, ``\r\n`` and a lone ``\r`` only (``str.splitlines`` also splits at form
    feeds, ``\x1c``-``\x1e``, NEL and U+2028/2029, which would show one line of the
    file as two lines of the diff)."""
    return [line for line in _LINE_END.split(text) if line]


def text_diff(before: str | None, after: str | None, old_label: str, new_label: str) -> str:
    """A unified diff of two whole texts (None: no file), every line ending in a newline."""
    lines = difflib.unified_diff(
        diff_lines(before or ""),
        diff_lines(after or ""),
        old_label,
        new_label,
        n=CONTEXT,
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
