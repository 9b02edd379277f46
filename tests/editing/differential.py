"""Random files, regions, edits and model drift for the differential property tests.

A *case* is a file (in its own terms: endings, BOM, final newline), one
region of it, and the region's new text as it should be written in the
file. ``quote`` gives old and new as a drifting model would send them; the
expected result is the file with only the region replaced.

The generators keep away from what the rules leave open, so that a result
other than the expected one is a real fault:

- the region is unique however loosely it is read (its text with
  typographic look-alikes folded and all whitespace removed occurs once in
  the file), and the drifted quote occurs nowhere else as it is;
- the region's lines and their neighbours share one line ending (new lines
  take the ending around them; which neighbour wins in a mixed file is left
  to the unit tests);
- a changed line has no trailing blanks in the file, and typographic
  characters in new come only from the lines it copied from old;
- continuation lines of a fragment's new text are at least as deep as the
  fragment's line (written where they go).
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

import hypothesis.strategies as st
from hypothesis import HealthCheck, assume, settings

from editing.punctuation import fold

EXAMPLES = int(os.environ.get("SUREHAND_FUZZ_EXAMPLES", "150"))
# Unique regions and drift with evidence are a small share of random draws.
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)

BOM = "\ufeff"
NAMES = ["total", "items", "ctx", "price", "user_id", "résumé", "名前", "cfg", "x", "i"]
WORDS = ["hello", "world", "it's", "naïve", "日本語", "done", "a-b", "x--y", "50%", "tab\there"]
TYPOGRAPHIC_TEXT = ["“quoted”", "‘single’", "en–dash", "em—dash", "no\u00a0break", "（全角）"]
NUMBERS = ["0", "1", "42", "3.14", "-1"]


# -- files ----------------------------------------------------------------------


@st.composite
def code_line(draw: st.DrawFn, indent_unit: str) -> str:
    """One line of code in one of a few languages' shapes, at some depth."""
    depth = draw(st.integers(0, 3))
    indent = indent_unit * depth
    name = draw(st.sampled_from(NAMES))
    other = draw(st.sampled_from(NAMES))
    number = draw(st.sampled_from(NUMBERS))
    text = draw(st.sampled_from(WORDS + TYPOGRAPHIC_TEXT))
    shape = draw(
        st.sampled_from(
            [
                f"def {name}({other}):",
                f"return {name} + {number}",
                f"{name} = {other} - {number}",
                f'print("{text}")',
                f"# {text} {name}",
                f"const {name} = '{text}';",
                f"if ({name} > {number}) {{",
                "}",
                f"{name}({other}, {number})",
                f'log.info("{text}: %s", {name})',
                f'msg = "{text}\\n"',
                f"{name}: {number}",
            ]
        )
    )
    trailing = draw(st.sampled_from(["", "", "", " ", "\t"]))
    return indent + shape + trailing


@dataclass(frozen=True)
class File:
    lines: list[str]  # without endings
    eols: list[str]  # one per line; the last is "" when there is no final newline
    bom: bool

    @property
    def text(self) -> str:
        body = "".join(line + eol for line, eol in zip(self.lines, self.eols, strict=True))
        return (BOM if self.bom else "") + body

    @property
    def view(self) -> str:
        return "".join(
            line + ("\n" if eol else "") for line, eol in zip(self.lines, self.eols, strict=True)
        )


@st.composite
def files(draw: st.DrawFn) -> File:
    indent_unit = draw(st.sampled_from(["    ", "  ", "\t"]))
    lines = draw(st.lists(st.one_of(code_line(indent_unit), st.just("")), min_size=1, max_size=14))
    style = draw(st.sampled_from(["lf", "crlf", "mixed"]))
    if style == "mixed":
        # Runs of each ending, as files edited on two systems have.
        split = draw(st.integers(0, len(lines)))
        first, second = draw(st.permutations(["\n", "\r\n"]))
        eols = [first] * split + [second] * (len(lines) - split)
    else:
        eols = ["\n" if style == "lf" else "\r\n"] * len(lines)
    if lines[-1] and not draw(st.booleans()):
        eols[-1] = ""  # no final newline (an empty last line would be no line at all)
    return File(lines, eols, draw(st.booleans()))


def compact(text: str) -> str:
    return "".join(fold(text).split())


def occurs_once(text: str, part: str) -> bool:
    first = text.find(part)
    return first >= 0 and text.find(part, first + 1) < 0


# -- edits ----------------------------------------------------------------------


def changed_line(draw: st.DrawFn, line: str) -> str:
    """``line`` with one token changed, trailing blanks dropped."""
    body = line.rstrip()
    tokens = [name for name in NAMES + NUMBERS if name in body]
    if bool(tokens) and draw(st.booleans()):
        token = draw(st.sampled_from(tokens))
        replacement = draw(st.sampled_from(["renamed", "7", "other_name", "None"]))
        return body.replace(token, replacement, 1)
    return body + draw(st.sampled_from([" # edited", ";", " + 1", ", extra"]))


def added_line(draw: st.DrawFn, indent: str) -> str:
    shape = draw(
        st.sampled_from(['log("added")', "count += 1", "return None", "x = y - 2", "pass"])
    )
    return indent + shape


@dataclass(frozen=True)
class Region:
    """``lines[first:last]`` (whole lines) or ``lines[first][start:end]`` (a fragment)."""

    first: int
    last: int
    new_lines: list[str]  # the region's lines as they should be in the file
    ends_line: bool = True  # old (and new) include the last line's newline
    fragment: tuple[int, int] | None = None


@st.composite
def regions(draw: st.DrawFn, file: File) -> Region:
    count = len(file.lines)
    first = draw(st.integers(0, count - 1))
    if draw(st.integers(0, 4)) == 0:
        return draw(_fragment(file, first))
    last = draw(st.integers(first + 1, min(count, first + 5)))
    old = file.lines[first:last]
    new: list[str] = []
    for line in old:
        action = draw(st.sampled_from(["keep", "keep", "change", "drop", "add"]))
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        if action == "keep":
            new.append(line)
        elif action == "change" and line.strip():
            new.append(changed_line(draw, line))
        elif action == "add":
            new += [line, added_line(draw, indent)]
    if new == old:
        new.append(added_line(draw, ""))
    has_newline = bool(file.eols[last - 1])
    ends_line = has_newline and draw(st.booleans())
    # Without its newline an empty last line is no text at all: not a region of its own.
    assume(ends_line or old[-1])
    assume(ends_line or not new or new[-1])  # the same for new
    assume(new or ends_line)  # deleting text but not its line is left to the unit tests
    assume(new != [""] or ends_line)  # an empty new text deletes; it cannot stand for a blank line
    return Region(first, last, new, ends_line)


@st.composite
def _fragment(draw: st.DrawFn, file: File, index: int) -> Region:
    line = file.lines[index].rstrip()
    body_start = len(line) - len(line.lstrip())
    assume(len(line) - body_start >= 3)
    start = draw(st.integers(body_start, len(line) - 2))
    end = draw(st.integers(start + 2, len(line)))
    piece = line[start:end]
    assume(piece.strip() == piece)
    replacement = draw(st.sampled_from(["renamed", "f(a, b)", "7", "x - 1"]))
    new = [replacement]
    if draw(st.integers(0, 3)) == 0:
        # A multi-line new text written where its lines go.
        indent = line[:body_start]
        new = [replacement + "(", indent + "    arg,", indent + ")"]
    return Region(index, index + 1, new, ends_line=False, fragment=(start, end))


def old_text(file: File, region: Region) -> str:
    if region.fragment:
        start, end = region.fragment
        return file.lines[region.first][start:end]
    text = "\n".join(file.lines[region.first : region.last])
    return text + ("\n" if region.ends_line else "")


def new_text(region: Region) -> str:
    text = "\n".join(region.new_lines)
    return text + ("\n" if region.ends_line and region.new_lines else "")


def expected(file: File, *regions: Region) -> str:
    """The file with the regions (in file order, apart) replaced, in the file's terms."""
    for region in sorted(regions, key=lambda r: r.first, reverse=True):
        file = File(*_replaced(file, region), file.bom)
    return file.text


def _replaced(file: File, region: Region) -> tuple[list[str], list[str]]:
    lines, eols = list(file.lines), list(file.eols)
    eol = _ending_around(file, region)
    if region.fragment:
        start, end = region.fragment
        line = lines[region.first]
        lines[region.first] = line[:start] + eol.join(region.new_lines) + line[end:]
        return lines, eols
    new_eols = [eol] * len(region.new_lines)
    if new_eols and not region.ends_line:
        new_eols[-1] = file.eols[region.last - 1]
    if not region.new_lines and not file.eols[region.last - 1] and region.first:
        # The last lines deleted: the line before becomes the last, without a newline.
        eols[region.first - 1] = ""
    lines[region.first : region.last] = region.new_lines
    eols[region.first : region.last] = new_eols
    return lines, eols


def _ending_around(file: File, region: Region) -> str:
    """The ending of the region's lines, else of the line before, else the file's."""
    around = file.eols[region.first : region.last]
    if region.first:
        around.append(file.eols[region.first - 1])
    for eol in around:
        if eol:
            return eol
    crlf = file.eols.count("\r\n")
    return "\r\n" if crlf * 2 > len([e for e in file.eols if e]) else "\n"


def uniform_endings(file: File, region: Region) -> bool:
    """Whether the region's lines and the lines around it share one ending."""
    around = file.eols[max(0, region.first - 1) : region.last + 1]
    return len({eol for eol in around if eol}) <= 1


def unique_enough(file: File, region: Region, quotes: list[str]) -> bool:
    """The region is the only place any drifted ``quotes`` can match, however loosely."""
    view = file.view
    core = compact(old_text(file, region))
    if not core or not occurs_once(compact(view), core):
        return False
    return all(compact(q) == core or compact(q) not in compact(view) for q in quotes)


# -- drift ----------------------------------------------------------------------


def _lines_map(text: str, change: Callable[[str], str]) -> str:
    return "\n".join(change(line) if line.strip() else line for line in text.split("\n"))


def _curl(text: str) -> str:
    out, opening = [], True
    for char in text:
        if char == '"':
            out.append("“" if opening else "”")
            opening = not opening
        elif char == "'":
            out.append("’")
        else:
            out.append(char)
    return "".join(out)


def _common_indent(text: str) -> str:
    leads = [
        line[: len(line) - len(line.lstrip(" \t"))] for line in text.split("\n") if line.strip()
    ]
    common = min(leads, key=len) if leads else ""
    while common and not all(lead.startswith(common) for lead in leads):
        common = common[:-1]
    return common


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _numbered(text: str, first: int) -> str:
    if not text:
        return text
    lines = text.split("\n")
    final = lines[-1] == ""
    if final:
        lines.pop()
    out = "\n".join(f"{first + i:>6}→{line}" for i, line in enumerate(lines))
    return out + ("\n" if final else "")


TYPOGRAPHIC = set("“”‘’–—\u00a0（）")  # what the file's own text may hold


def drift_names(old: str, *, whole_lines: bool) -> list[str]:
    """The drifts that have something to act on in ``old`` (evidence for new)."""
    names = []
    if whole_lines:
        names += ["deeper", "numbered"]
        if _common_indent(old):
            names.append("stripped")
        if any(line.startswith("\t") for line in old.split("\n")):
            names.append("tabs_as_spaces")
        if all(line == line.rstrip() for line in old.split("\n")):
            names.append("trailing")
        if any(line.startswith(" ") for line in old.split("\n")):
            names.append("nbsp_indent")
    typographic = any(char in TYPOGRAPHIC for char in old)
    if ('"' in old or "'" in old) and not typographic:
        names.append("curly")
    if typographic:
        names.append("plain")
    if " - " in old and not typographic:
        names.append("en_dash")
    if "--" in old and not typographic:
        names.append("em_dash")
    if any(" " in line.strip() for line in old.split("\n")) and not typographic:
        names.append("nbsp")
    if '"' in old or "\\" in old:
        names.append("escaped")
    if unicodedata.normalize("NFD", old) != old:
        names.append("decomposed")
    return names


def _stripped(text: str, old: str) -> str | None:
    common = _common_indent(old)
    lines = text.split("\n")
    if not all(line.startswith(common) for line in lines if line.strip()):
        return None
    return "\n".join(line[len(common) :] if line.strip() else line for line in lines)


def _tabs_as_spaces(line: str) -> str:
    tabs = len(line) - len(line.lstrip("\t"))
    return "    " * tabs + line[tabs:]


def _nbsp_indent(line: str) -> str:
    body = line.lstrip(" ")
    return "\u00a0" * (len(line) - len(body)) + body


def _nbsp(text: str) -> str:
    lines = text.split("\n")
    return "\n".join(
        line[: len(line) - len(line.lstrip())] + line.lstrip().replace(" ", "\u00a0")
        for line in lines
    )


# name -> (text, old, number of old's first line) -> drifted text, or None
DRIFTS: dict[str, Callable[[str, str, int], str | None]] = {
    "deeper": lambda text, old, n: _lines_map(text, lambda line: "    " + line),
    "stripped": lambda text, old, n: _stripped(text, old),
    "tabs_as_spaces": lambda text, old, n: _lines_map(text, _tabs_as_spaces),
    "trailing": lambda text, old, n: _lines_map(text, lambda line: line + "  "),
    "nbsp_indent": lambda text, old, n: _lines_map(text, _nbsp_indent),
    "curly": lambda text, old, n: _curl(text),
    "plain": lambda text, old, n: fold(text),
    "en_dash": lambda text, old, n: text.replace(" - ", " – "),
    "em_dash": lambda text, old, n: text.replace("--", "—"),
    "nbsp": lambda text, old, n: _nbsp(text),
    "escaped": lambda text, old, n: _escape(text),
    "numbered": lambda text, old, n: _numbered(text, n),
    "decomposed": lambda text, old, n: unicodedata.normalize("NFD", text),
}
