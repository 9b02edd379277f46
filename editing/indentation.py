"""Indentation drift: the model's block sits at another depth, or in other units.

An ``IndentMap`` turns the model's leading whitespace into the file's. It is
inferred from the pairs ``(model indent, file indent)`` of the lines that
matched, and must explain every pair; the new text is then re-indented with
it. Two shapes cover what models do:

- an *offset*: a prefix removed from or added to every line (the block was
  quoted 4 spaces too deep, or with its common indentation stripped);
- a *conversion* between units: the model wrote 4 spaces per level where the
  file uses tabs (or the reverse), possibly also shifted by whole levels.
"""

from __future__ import annotations

from dataclasses import dataclass

from .punctuation import Family, family, fold

_WIDTHS = (4, 2, 8, 3)


def leading(line: str) -> str:
    """The leading blanks (spaces and tabs) of ``line``."""
    return line[: len(line) - len(line.lstrip(" \t"))]


def model_leading(line: str) -> tuple[str, str]:
    """``line``'s indentation read loosely, and the rest of the line.

    Odd spaces (no-break, figure, zero-width ...) in a model's indentation
    were spaces before a chat layer prettified them: they count as spaces
    (zero-width ones as nothing).
    """
    end = 0
    while end < len(line) and (line[end] in " \t" or family(line[end]) is Family.SPACE):
        end += 1
    return fold(line[:end]), line[end:]


def raw_leading(line: str) -> str:
    """All leading whitespace of ``line``, odd spaces included, as it is."""
    return line[: len(line) - len(line.lstrip())]


def columns(line: str) -> int:
    """How deep ``line`` is indented, a tab counting up to the next multiple of 8."""
    return len(leading(line).expandtabs(8))


def block_end(view: str, pos: int, width: int) -> int:
    """Where the block from the line start ``pos`` on ends: the start of its first
    non-blank line indented less than ``width`` columns, else the end of ``view``."""
    if width == 0:
        return len(view)
    deep = " " * width  # a line starting with these is at least that deep
    while pos < len(view):
        end = view.find("\n", pos)
        end = len(view) if end < 0 else end
        line = view[pos:end]
        if not line.startswith(deep) and line.strip() and columns(line) < width:
            return pos
        pos = end + 1
    return len(view)


@dataclass(frozen=True)
class IndentMap:
    """``remove``/``add`` for an offset; ``model_unit``/``file_unit``/``shift`` for units."""

    remove: str = ""
    add: str = ""
    model_unit: str = ""
    file_unit: str = ""
    shift: int = 0

    @property
    def is_identity(self) -> bool:
        return not (self.remove or self.add or self.model_unit)

    def apply(self, indent: str) -> str | None:
        """The file's indentation for a model indentation, or None if it has none."""
        if self.model_unit:
            return self._convert(indent)
        if not indent.startswith(self.remove):
            return None
        return self.add + indent[len(self.remove) :]

    def _convert(self, indent: str) -> str | None:
        unit = self.model_unit
        levels = 0
        rest = indent
        while rest.startswith(unit):
            levels += 1
            rest = rest[len(unit) :]
        if rest.strip(" ") or levels + self.shift < 0:
            return None
        # Leftover spaces below one level are alignment; keep them after the units.
        return self.file_unit * (levels + self.shift) + rest


def infer(pairs: list[tuple[str, str]]) -> IndentMap | None:
    """The map explaining every ``(model, file)`` indentation pair, or None."""
    if all(model == file for model, file in pairs):
        return IndentMap()
    offset = _infer_offset(pairs)
    model_chars = {c for m, _ in pairs for c in m}
    file_chars = {c for _, f in pairs for c in f}
    # Tabs on one side and spaces on the other: a change of units, not an offset.
    other_units = bool(model_chars and file_chars and model_chars != file_chars)
    if offset is not None and not other_units:
        return offset
    return _infer_units(pairs, model_chars, file_chars) or offset


def _infer_offset(pairs: list[tuple[str, str]]) -> IndentMap | None:
    model, file = min(pairs, key=lambda pair: len(pair[0]))
    common = 0
    while common < min(len(model), len(file)) and model[-1 - common] == file[-1 - common]:
        common += 1
    candidate = IndentMap(remove=model[: len(model) - common], add=file[: len(file) - common])
    if all(candidate.apply(m) == f for m, f in pairs):
        return candidate
    return None


def _infer_units(
    pairs: list[tuple[str, str]], model_chars: set[str], file_chars: set[str]
) -> IndentMap | None:
    """A change of units from one blank character to one other (or none)."""
    if len(model_chars) != 1 or len(file_chars) > 1:
        return None
    model_char = next(iter(model_chars))
    file_char = next(iter(file_chars), " ")
    model_units = ["\t"] if model_char == "\t" else [" " * w for w in _WIDTHS]
    file_units = ["\t"] if file_char == "\t" else [" " * w for w in _WIDTHS]
    found = []
    for model_unit in model_units:
        for file_unit in file_units:
            shifts = set()
            for m, f in pairs:
                if len(m) % len(model_unit) or len(f) % len(file_unit):
                    break
                shifts.add(len(f) // len(file_unit) - len(m) // len(model_unit))
            else:
                if len(shifts) == 1:
                    found.append(
                        IndentMap(model_unit=model_unit, file_unit=file_unit, shift=shifts.pop())
                    )
    if not found:
        return None
    # Prefer a plain change of units over one that also shifts levels.
    return min(found, key=lambda candidate: abs(candidate.shift))
