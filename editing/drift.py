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
from .matches import Level


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


# An unchanged run of the old line with fewer of the model's own characters
# than this, inside the line, is too little evidence that the ASCII the model
# wrote there stands for the file's typographic character (it may be a new
# character that happens to look alike). At an edge of the line it is enough
# when the line shows otherwise that it was copied: it keeps both its edges,
# or a run of this many of the model's characters.
_SURE_RUN = 3

Spans = tuple[tuple[int, int], ...]


def in_file_terms(
    body: str,
    paired: tuple[str, str] | None,
    drift: Drift,
    written: tuple[Spans, Spans] | None = None,
) -> str:
    """Characters kept from the old line take the file's; new ones are folded back.

    ``written`` are the spans of the paired old line and of ``body`` that the
    model wrote (None: all of them); the rest is the file's own text spliced
    around a fragment, kept as it is and no evidence that the model kept
    anything: a run counts by the characters the model wrote on both sides.

    Raises ``UncertainCharacter`` when a short run the diff pairs with the old
    line would turn the model's ASCII into the file's typographic character.
    """
    new_spans = None if written is None else written[1]
    if paired is None:
        return _undo_written(drift, body, 0, len(body), new_spans)
    model_core, file_core = paired[0].strip(), paired[1].strip()
    pieces = punctuation.align(model_core, file_core)
    if pieces is None:
        return _undo_written(drift, body, 0, len(body), new_spans)
    own = _Own(written, len(paired[0]) - len(paired[0].lstrip()), len(model_core), len(body))
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
    runs = [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in ops if tag == "equal"]
    copied = any(own.count(i1, j1, i2 - i1) >= _SURE_RUN for i1, i2, j1, _ in runs) or (
        any(i1 == j1 == 0 for i1, _, j1, _ in runs)
        and any(i2 == len(model_core) and j2 == len(body) for _, i2, _, j2 in runs)
    )
    for tag, i1, i2, j1, j2 in ops:
        if tag != "equal":
            out.append(_undo_written(drift, body, j1, j2, new_spans))
            continue
        at_edge = (i1 == j1 == 0) or (i2 == len(model_core) and j2 == len(body))
        sure = own.count(i1, j1, i2 - i1) >= _SURE_RUN or (at_edge and copied)
        for start, end, file_text in bounds:
            if end <= i1 or start >= i2:
                continue
            model_text = model_core[max(start, i1) : min(end, i2)]
            if start < i1 or end > i2:
                # Only part of the piece is kept (a letter without its accent).
                out.append(drift.undo(model_text))
                continue
            if file_text != model_text and not sure:
                _check_run(model_text, file_text)
            out.append(file_text)
    return "".join(out)


class _Own:
    """Which characters of an old line (stripped) and a new body the model wrote."""

    def __init__(
        self, written: tuple[Spans, Spans] | None, old_lead: int, old_size: int, new_size: int
    ) -> None:
        self.masks: tuple[list[bool], list[bool]] | None = None
        if written is not None:
            old_mask = _mask(written[0], old_size, shift=old_lead)
            self.masks = (old_mask, _mask(written[1], new_size, shift=0))

    def count(self, i: int, j: int, size: int) -> int:
        """How many of ``size`` characters kept from old ``i`` on as new ``j`` on
        the model wrote on both sides."""
        if self.masks is None:
            return size
        old_mask, new_mask = self.masks
        return sum(old_mask[i + k] and new_mask[j + k] for k in range(size))


def _mask(spans: Spans, size: int, *, shift: int) -> list[bool]:
    mask = [False] * size
    for a, b in spans:
        for k in range(max(0, a - shift), min(size, b - shift)):
            mask[k] = True
    return mask


def _undo_written(drift: Drift, body: str, start: int, end: int, written: Spans | None) -> str:
    """``body[start:end]`` with the model's characters in the file's terms and
    the file's own (spliced) text as it is."""
    if written is None:
        return drift.undo(body[start:end])
    out, cursor = [], start
    for a, b in written:
        first, last = max(a, start), min(b, end)
        if first >= last:
            continue
        out += [body[cursor:first], drift.undo(body[first:last])]
        cursor = last
    out.append(body[cursor:end])
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
