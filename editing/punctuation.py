"""Typographic drift: curly quotes, dashes, odd spaces and other look-alikes.

Models (and the chat layers around them) "prettify" text: straight quotes
become curly, ``--`` becomes an em dash, spaces become non-breaking. ``fold``
maps every such character to the ASCII the code most likely had, so the
punctuation level of the ladder can compare a model's text with the file's.
``Family`` groups the characters so that the write side can undo a drift seen
for one member (a curly double quote) on its siblings too.
"""

from __future__ import annotations

import unicodedata
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
    """``text`` with every look-alike replaced by its ASCII form.

    Accented letters are also composed (NFC): ``e`` and a combining acute
    accent read as ``é``, the same letter to a reader.
    """
    if text.isascii():
        return text
    folded = text.translate(_TABLE)
    if unicodedata.is_normalized("NFC", folded):
        return folded
    return unicodedata.normalize("NFC", folded)


def family(char: str) -> Family | None:
    """The family of a foldable character, or None for anything else."""
    return _FAMILY.get(char)


def align(model: str, file: str) -> list[tuple[str, str]] | None:
    """Pair up pieces of ``model`` and ``file`` whose folds are equal.

    Returns ``(model_piece, file_piece)`` pairs covering both strings in
    order, each as short as folding allows (one character, an em dash
    against ``--``, a letter against the same letter with a combining
    accent), or None when the folds differ.
    """
    pairs: list[tuple[str, str]] = []
    i = j = 0
    while i < len(model) or j < len(file):
        mi, fj = i, j
        m_key = f_key = ""
        while True:
            # Grow whichever side is behind until both folds line up again.
            if i < len(model) and (len(m_key) <= len(f_key) or j >= len(file)):
                i += 1
                m_key = _decomposed(model[mi:i])
            elif j < len(file):
                j += 1
                f_key = _decomposed(file[fj:j])
            else:
                return None
            if m_key == f_key:
                break
            if not (f_key.startswith(m_key) or m_key.startswith(f_key)):
                return None
        pairs.append((model[mi:i], file[fj:j]))
    return pairs


def _decomposed(piece: str) -> str:
    """The fold of ``piece`` with accents apart, so that pieces compare as they grow."""
    folded = fold(piece)
    return folded if folded.isascii() else unicodedata.normalize("NFD", folded)
