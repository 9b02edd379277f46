"""The model's drift, learnt from the lines old matched, and undone in new.

A ``Drift`` records what the model changed when it copied the file: blanks
added at line ends, typographic characters written for the file's ASCII
(or ASCII for the file's typographic ones). ``undo`` and ``in_file_terms``
write a changed line of new back in the file's own characters: those the
model kept from an old line take the file's characters at that place; new
typographic ones are folded when the model was seen drifting their family;
new ASCII ones stay as written (there is no telling which curly form a new
straight quote would have had).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from . import punctuation
from .matcher import Level


@dataclass
class Drift:
    """What the model changed when it copied ``old``, learnt from the matched lines."""

    adds_trailing: bool = False
    # The model's character -> the file's, for each one it copied differently.
    # (Not named ``punctuation``: in the class body that would hide the module.)
    swapped: dict[str, str] = field(default_factory=dict)
    kept: set[str] = field(default_factory=set)
    families: set[punctuation.Family] = field(default_factory=set)
    # Some character the model copied is not the file's (ASCII for a curly
    # quote, a composed accent for a decomposed one, ...).
    loose_copy: bool = False

    def learn(self, model: str, file: str, level: Level) -> None:
        if not model.strip():
            return
        if model != model.rstrip() and file == file.rstrip():
            self.adds_trailing = True
        if level < Level.PUNCTUATION:
            return
        for model_piece, file_piece in punctuation.align(model.strip(), file.strip()) or []:
            single = len(model_piece) == 1 and not model_piece.isascii()
            if model_piece == file_piece:
                if single:
                    self.kept.add(model_piece)
                continue
            self.loose_copy = True
            if single:
                self.swapped[model_piece] = file_piece
                char_family = punctuation.family(model_piece)
                if char_family:
                    self.families.add(char_family)

    @property
    def folds(self) -> bool:
        return self.loose_copy

    def undo(self, chars: str) -> str:
        """Model-written characters in the file's terms."""
        if chars.isascii():
            return chars
        out = []
        for char in chars:
            if char in self.swapped:
                out.append(self.swapped[char])
            elif char not in self.kept and punctuation.family(char) in self.families:
                out.append(punctuation.fold(char))
            else:
                out.append(char)
        return "".join(out)


class UncertainCharacter(Exception):
    """A typographic character of the file that new may or may not have kept."""

    def __init__(self, file_char: str, model_char: str) -> None:
        super().__init__(file_char)
        self.file_char = file_char
        self.model_char = model_char


# An unchanged run of the old line shorter than this, inside the line, is too
# little evidence that the ASCII the model wrote there stands for the file's
# typographic character (it may be a new character that happens to look alike).
_SURE_RUN = 3


def in_file_terms(body: str, paired: tuple[str, str] | None, drift: Drift) -> str:
    """Characters kept from the old line take the file's; new ones are folded back.

    Raises ``UncertainCharacter`` when a short run the diff pairs with the old
    line would turn the model's ASCII into the file's typographic character.
    """
    if paired is None:
        return drift.undo(body)
    model_core, file_core = paired[0].strip(), paired[1].strip()
    pieces = punctuation.align(model_core, file_core)
    if pieces is None:
        return drift.undo(body)
    # Where each piece of the model's old line starts, and the file's text for it.
    bounds: list[tuple[int, int, str]] = []
    pos = 0
    for model_piece, file_piece in pieces:
        if model_piece:
            bounds.append((pos, pos + len(model_piece), file_piece))
        elif bounds:
            start, end, text = bounds[-1]
            bounds[-1] = (start, end, text + file_piece)
        pos += len(model_piece)
    out = []
    ops = difflib.SequenceMatcher(None, model_core, body, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag != "equal":
            out.append(drift.undo(body[j1:j2]))
            continue
        at_edge = (i1 == j1 == 0) or (i2 == len(model_core) and j2 == len(body))
        for start, end, file_text in bounds:
            if end <= i1 or start >= i2:
                continue
            model_text = model_core[max(start, i1) : min(end, i2)]
            if start < i1 or end > i2:
                # Only part of the piece is kept (a letter without its accent).
                out.append(drift.undo(model_text))
                continue
            if file_text != model_text and i2 - i1 < _SURE_RUN and not at_edge:
                _check_run(model_text, file_text)
            out.append(file_text)
    return "".join(out)


def _check_run(model_text: str, file_text: str) -> None:
    if model_text.isascii():
        raise UncertainCharacter(file_text, model_text)


NEAR = 8  # old lines around a block of new ones where a changed copy may sit


def pair(line: str, old_lines: list[str], i1: int, i2: int) -> int | None:
    """The replaced old line ``line`` was written from, if one is similar enough."""
    best, best_ratio = None, 0.5
    for i in range(i1, min(i2, len(old_lines))):
        candidate = difflib.SequenceMatcher(None, old_lines[i].strip(), line.strip())
        if candidate.quick_ratio() > best_ratio and candidate.ratio() > best_ratio:
            best, best_ratio = i, candidate.ratio()
    return best
