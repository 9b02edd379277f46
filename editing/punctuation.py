"""Typographic drift: curly quotes, dashes, odd spaces and other look-alikes.

Models (and the chat layers around them) "prettify" text: straight quotes
become curly, ``--`` becomes an em dash, spaces become non-breaking. ``fold``
maps every such character to the ASCII the code most likely had, so the
punctuation level of the ladder can compare a model's text with the file's.
``Family`` groups the characters so that the write side can undo a drift seen
for one member (a curly double quote) on its siblings too.
"""

from __future__ import annotations

from enum import Enum


class Family(Enum):
    QUOTE = "quote"
    DASH = "dash"
    SPACE = "space"
    OTHER = "other"


_QUOTES = {
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\uff02": '"', "\uff07": "'",
}  # fmt: skip
_DASHES = {
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2212": "-",
    "\u2014": "--", "\u2015": "--", "\ufe58": "-", "\ufe63": "-", "\uff0d": "-",
}  # fmt: skip
_SPACES = {
    **{chr(c): " " for c in range(0x2000, 0x200B)},
    "\u00a0": " ", "\u202f": " ", "\u205f": " ", "\u3000": " ",
    "\u200b": "", "\u200c": "", "\u200d": "", "\u2060": "", "\ufeff": "",
}  # fmt: skip
_OTHER = {
    "\u2026": "...",
    # Fullwidth ASCII (what NFKC does for the forms block), minus the quote
    # and dash entries above.
    **{
        chr(c): chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F) if chr(c) not in "\uff02\uff07\uff0d"
    },
}

_FOLD: dict[str, str] = {**_QUOTES, **_DASHES, **_SPACES, **_OTHER}
_TABLE = str.maketrans(_FOLD)
_FAMILY = {
    **dict.fromkeys(_QUOTES, Family.QUOTE),
    **dict.fromkeys(_DASHES, Family.DASH),
    **dict.fromkeys(_SPACES, Family.SPACE),
    **dict.fromkeys(_OTHER, Family.OTHER),
}


def fold(text: str) -> str:
    """``text`` with every look-alike replaced by its ASCII form."""
    if text.isascii():
        return text
    return text.translate(_TABLE)


def family(char: str) -> Family | None:
    """The family of a foldable character, or None for anything else."""
    return _FAMILY.get(char)


def align(model: str, file: str) -> list[tuple[str, str]] | None:
    """Pair up pieces of ``model`` and ``file`` whose folds are equal.

    Returns ``(model_piece, file_piece)`` pairs covering both strings in
    order, each as short as folding allows (one character, or an em dash
    against ``--``), or None when the folds differ.
    """
    pairs: list[tuple[str, str]] = []
    i = j = 0
    while i < len(model) or j < len(file):
        mi, fj = i, j
        m_fold = f_fold = ""
        while True:
            # Grow whichever side is behind until both folds line up again.
            if i < len(model) and (len(m_fold) <= len(f_fold) or j >= len(file)):
                m_fold += fold(model[i])
                i += 1
            elif j < len(file):
                f_fold += fold(file[j])
                j += 1
            else:
                return None
            if m_fold == f_fold:
                break
            if not (f_fold.startswith(m_fold) or m_fold.startswith(f_fold)):
                return None
        pairs.append((model[mi:i], file[fj:j]))
    return pairs
