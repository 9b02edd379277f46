"""How many places old matches in the whole file, counted without building them.

An ambiguous refusal lists the first places and says how many there are in
all. On a file of a million identical lines, building a match for each place
costs seconds; these counts run in the regular expression engine instead.
Each agrees with the number of matches ``matcher.find`` gives at that level
(the property tests check it); None means there is no fast count for that
shape of old (the caller counts the slow way).
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from . import indentation

_LONGEST = 2_000  # characters of old (exact) beyond which no pattern is built
_MOST_LINES = 100  # lines of old (whole-line levels) beyond which no pattern is built


def exact(view: str, old: str) -> int | None:
    """The number of exact matches of ``old`` (as ``matcher`` finds them) in ``view``."""
    if not old or len(old) > _LONGEST:
        return None
    blank_start = old[0] in " \t"
    if blank_start and not old.strip(" \t"):
        return None
    found = len(_overlapping(old).findall(view))
    if blank_start:
        # At most one occurrence starts inside a line's indentation (old has a
        # character other than a blank, and that character would end the run).
        found -= len(_in_indentation(old).findall("\n" + view))
    body = old[:-1]
    if old.endswith("\n") and body.strip() and not view.endswith("\n") and view.endswith(body):
        start = len(view) - len(body)
        line_start = view.rfind("\n", 0, start) + 1
        inside = line_start < start and not view[line_start:start].strip(" \t")
        found += not (blank_start and inside)
    return found


def whole_lines(view: str, old: str, *, indented: bool) -> int | None:
    """The number of runs of lines of ``view`` that old's lines match, as the
    trailing whitespace level (``indented`` False) or the indentation level
    reads them (the file's indentation then has to map from old's)."""
    old_lines = old.split("\n")
    if old_lines[-1] == "":
        old_lines.pop()
    if len(old_lines) > _MOST_LINES:
        return None
    keys = [line.lstrip(" \t").rstrip() if indented else line.rstrip() for line in old_lines]
    if not max(keys, key=len):
        return 0
    model_leads = tuple(
        indentation.leading(line) for line, key in zip(old_lines, keys, strict=True) if key
    )
    text = "\n" + view
    runs = _runs(tuple(keys), _ANY if indented else _NONE)
    if not indented:
        return len(runs.findall(text))
    # Most often every run is indented like the first: count those, cheaply.
    first = runs.search(text)
    if first is None:
        return 0
    leads = tuple(
        indentation.leading(line)
        for line, key in zip(_lines_from(view, first.start(), len(keys)), keys, strict=True)
        if key
    )
    mapped = indentation.infer(list(zip(model_leads, leads, strict=True))) is not None
    if mapped and _only_at(text, [key for key in keys if key], leads):
        # Every run is at the first one's indentation: one pass counts them.
        return _count_at(text, tuple(keys), leads)
    found = len(runs.findall(text))
    if mapped and len(_runs(tuple(keys), leads).findall(text)) == found:
        return found
    return _count_by_indentation(text, tuple(keys), model_leads)


def _count_at(text: str, keys: tuple[str, ...], leads: tuple[str, ...]) -> int:
    """The runs of lines with these keys at exactly these indentations.

    When old is one line several times over (blank-free), the runs are
    counted from the blocks of that line: a block of m such lines holds
    m - n + 1 runs of n. The regular expression engine then reads each line
    once, not once for each run it may start.
    """
    if all(keys) and len(set(keys)) == 1 and len(set(leads)) == 1:
        size, count = len(keys), text.count
        blocks = _blocks(leads[0] + keys[0]).finditer(text)
        return sum(max(0, count("\n", *block.span()) - size + 1) for block in blocks)
    return len(_runs(keys, leads).findall(text))


@lru_cache(maxsize=16)
def _blocks(line: str) -> re.Pattern[str]:
    """Blocks of lines that are ``line`` (blanks after it allowed), in ``"\n" + view``."""
    # Each line is taken whole or not at all, so nothing is kept to backtrack
    # into (possessive): memory and time stay linear in a block of a million lines.
    return re.compile(r"(?:\n" + re.escape(line) + r"[^\S\n]*+(?=\n|\Z))++")


def _only_at(text: str, keys: list[str], leads: tuple[str, ...]) -> bool:
    """Whether no line of ``text`` has one of ``keys`` at another indentation
    than its lead (``text`` starts with a newline; keys have no outer blanks).

    A line with key k at another indentation holds an occurrence of k that
    no occurrence of newline + lead + k covers (a key starts with no blank),
    so the greatest number of separate occurrences of k, which ``str.count``
    gives, would exceed the number of the latter.
    """
    pairs = set(zip(keys, leads, strict=True))
    if len({key for key, _ in pairs}) != len(pairs):
        return False  # one key at two depths: count the slow way
    return all(text.count(key) == text.count("\n" + lead + key) for key, lead in pairs)


def _lines_from(view: str, start: int, count: int) -> list[str]:
    """``count`` lines of ``view`` from the line start ``start`` on."""
    lines = []
    for _ in range(count):
        end = view.find("\n", start)
        end = len(view) if end < 0 else end
        lines.append(view[start:end])
        start = end + 1
    return lines


def _count_by_indentation(text: str, keys: tuple[str, ...], model_leads: tuple[str, ...]) -> int:
    """The runs whose indentation maps from old's, each distinct indentation tried once."""
    runs = _runs(keys, _CAPTURE).findall(text)
    if len(model_leads) == 1:
        runs = [(lead,) for lead in runs]
    found = 0
    for file_leads, times in Counter(runs).items():
        if indentation.infer(list(zip(model_leads, file_leads, strict=True))) is not None:
            found += times
    return found


@lru_cache(maxsize=16)
def _overlapping(old: str) -> re.Pattern[str]:
    # Consumes only old's first character, so overlapping occurrences count.
    return re.compile(re.escape(old[0]) + "(?=" + re.escape(old[1:]) + ")")


@lru_cache(maxsize=16)
def _in_indentation(old: str) -> re.Pattern[str]:
    """Old preceded by nothing but blanks (at least one) on its line, in ``"\\n" + view``."""
    return re.compile(r"\n[ \t]+?(?=" + re.escape(old) + ")")


# How ``_runs`` reads the indentation of a run's non-blank lines.
_NONE = "none"  # there is none: the line starts with its key
_ANY = "any"  # any blanks
_CAPTURE = "capture"  # any blanks, captured


@lru_cache(maxsize=16)
def _runs(keys: tuple[str, ...], leads: str | tuple[str, ...]) -> re.Pattern[str]:
    """Runs of lines with these keys, at line starts of ``"\\n" + view``.

    ``leads`` is ``_NONE``, ``_ANY``, ``_CAPTURE`` or the non-blank lines'
    indentations, exactly.
    """
    given = iter(leads if isinstance(leads, tuple) else ())
    parts = []
    for key in keys:
        lead = ""
        if key and leads == _ANY:
            lead = "[ \t]*"
        elif key and leads == _CAPTURE:
            lead = "([ \t]*)"
        elif key and isinstance(leads, tuple):
            lead = re.escape(next(given))
        parts.append(lead + re.escape(key) + r"[^\S\n]*")
    # A final newline ends the last line; it does not start another one.
    return re.compile(r"\n(?=" + r"\n(?!\Z)".join(parts) + r"(?:\n|\Z))")
