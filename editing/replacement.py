"""The write side: turn one match and the model's new text into file text.

Whatever drift was tolerated to find ``old`` is undone in ``new``:

- a line that is the same in ``old`` and ``new`` is context the model only
  copied, so it keeps the file's bytes (trailing blanks, typographic
  characters, line ending);
- a changed line is re-indented with the match's ``IndentMap``, loses
  trailing blanks the model added everywhere, and has its typographic
  characters put back in the file's terms character by character: those the
  model kept from ``old`` take the file's characters at that place, new ones
  are folded when the model was seen drifting that family of characters;
- new lines take the line ending of the lines they replace or follow.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field

from . import indentation, messages, punctuation
from .document import Document, Line
from .errors import InvalidRequest
from .indentation import IndentMap
from .matcher import Level, Match


@dataclass(frozen=True)
class Replacement:
    """``view[start:end]`` becomes ``text`` (already in the file's own terms).

    ``start`` is a line start. ``ends_line`` says whether ``end`` is just
    past the newline of the last line replaced, rather than before it.
    """

    start: int
    end: int
    text: str
    ends_line: bool = True


@dataclass
class _Drift:
    """What the model changed when it copied ``old``, learnt from the matched lines."""

    adds_trailing: bool = False
    punctuation: dict[str, str] = field(default_factory=dict)
    kept: set[str] = field(default_factory=set)
    families: set[punctuation.Family] = field(default_factory=set)
    # The model wrote ASCII for a typographic character of the file.
    plain_for_typographic: bool = False

    def learn(self, model: str, file: str, level: Level) -> None:
        if not model.strip():
            return
        if model != model.rstrip() and file == file.rstrip():
            self.adds_trailing = True
        if level < Level.PUNCTUATION:
            return
        for model_piece, file_piece in punctuation.align(model.strip(), file.strip()) or []:
            if model_piece.isascii():
                self.plain_for_typographic |= model_piece != file_piece
                continue
            if len(model_piece) != 1:
                continue
            if model_piece == file_piece:
                self.kept.add(model_piece)
            else:
                self.punctuation[model_piece] = file_piece
                char_family = punctuation.family(model_piece)
                if char_family:
                    self.families.add(char_family)

    @property
    def folds(self) -> bool:
        return bool(self.punctuation or self.families or self.plain_for_typographic)

    def undo(self, chars: str) -> str:
        """Model-written characters in the file's terms."""
        if chars.isascii():
            return chars
        out = []
        for char in chars:
            if char in self.punctuation:
                out.append(self.punctuation[char])
            elif char not in self.kept and punctuation.family(char) in self.families:
                out.append(punctuation.fold(char))
            else:
                out.append(char)
        return "".join(out)


def _split(text: str) -> tuple[list[str], bool]:
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
        return lines, True
    return lines, False


def build(doc: Document, matches: Sequence[Match], old: str, new: str, path: str) -> Replacement:
    """The replacement for ``matches`` of ``old`` by ``new`` (both as the model meant them).

    ``matches`` are the matches that share lines (replace_all can find two on
    one line); whole-line matches always come alone.
    """
    view = doc.view
    first, last = matches[0], matches[-1]
    start, end = doc.whole_lines(first.start, last.end, ends_line=last.ends_line)
    file_lines = doc.lines_between(start, end, ends_line=last.ends_line)

    indent = first.indent
    if first.level == Level.EXACT or first.fragment:
        model_old, model_new = _splice(view, (start, end), matches, old, new)
        # A fragment's first line was placed after the file's own text already.
        reindent_first = first.start == start and not first.fragment
        prefix = view[start : first.start]
        file_indent = indentation.leading(file_lines[0].text)
        # A fragment's match starts after its blanks; an exact one includes them.
        matched_lead = "" if first.fragment else indentation.leading(old)
        if (
            indent is None
            and len(matches) == 1
            and "\n" not in old.rstrip("\n")
            and old.strip()
            and prefix + matched_lead == file_indent
            and not (indentation.leading(old) == "" and _in_file_columns(new, file_indent))
        ):
            # One whole line quoted from its indentation on: new lines after the
            # first follow the file's indentation of that line. Unless old was
            # quoted without any indentation and new's lines are all at least as
            # deep as the file's line: then they were written where they go.
            indent = indentation.infer([(indentation.leading(old), file_indent)])
    else:
        model_old, model_new, reindent_first = old, new, True

    old_lines, _ = _split(model_old)
    new_lines, new_ends_with_newline = _split(model_new)
    if len(old_lines) != len(file_lines):
        raise AssertionError("matched lines and quoted lines differ in number")

    drift = _Drift()
    if first.level > Level.EXACT:
        for model_line, file_line in zip(old_lines, file_lines, strict=True):
            drift.learn(model_line, file_line.text, first.level)
    if first.fragment:
        # The fragment's own blanks were stripped before matching; learn from them.
        trail = old[len(old.rstrip()) :]
        drift.adds_trailing = bool(trail) and not view.startswith(trail, last.end)

    out: list[Line] = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(file_lines[i1:i2])
            continue
        for j in range(j1, j2):
            paired = _pair(new_lines[j], old_lines, i1, i2) if drift.folds else None
            text = _rewrite(
                new_lines[j],
                (old_lines[paired], file_lines[paired].text) if paired is not None else None,
                None if j == 0 and not reindent_first else indent,
                drift,
                path,
                loose_lead=first.level == Level.PUNCTUATION and not first.fragment,
            )
            out.append(Line(text, _eol_near(file_lines, i1 + (j - j1), i1, i2, doc)))

    if end == len(view) and not view.endswith("\n"):
        # A file without a final newline stays without one.
        new_ends_with_newline = False
    text = _join(out, new_ends_with_newline, doc)
    return Replacement(start, end, text, last.ends_line)


def _in_file_columns(new: str, file_indent: str) -> bool:
    """Whether every non-blank line of ``new`` after its first is indented at
    least as deep as ``file_indent``: written where it goes in the file."""
    rest = [line for line in new.split("\n")[1:] if line.strip()]
    return all(line.startswith(file_indent) for line in rest)


def _eol_near(file_lines: list[Line], at: int, i1: int, i2: int, doc: Document) -> str:
    """The ending of the old line a new line takes the place of, else of its neighbours.

    ``[i1, i2)`` are the old lines the block of new lines replaces (empty for
    an insertion), ``at`` the one in the new line's position.
    """
    for index in (min(at, i2 - 1), i1 - 1, i2):
        if 0 <= index < len(file_lines) and file_lines[index].eol:
            return file_lines[index].eol
    return doc.eol


def _splice(
    view: str, region: tuple[int, int], matches: Sequence[Match], old: str, new: str
) -> tuple[str, str]:
    """Whole-line old and new text for matches that start or end inside lines."""
    start, end = region
    if matches[0].fragment:
        old_piece, new_piece = old.strip(), _fragment_new(old, new)
    else:
        old_piece, new_piece = old, new
    old_parts, new_parts = [], []
    cursor = start
    for match in matches:
        old_parts += [view[cursor : match.start], old_piece]
        new_parts += [view[cursor : match.start], new_piece]
        cursor = match.end
    old_parts.append(view[cursor:end])
    new_parts.append(view[cursor:end])
    return "".join(old_parts), "".join(new_parts)


def _fragment_new(old: str, new: str) -> str:
    """``new`` without the blanks around ``old`` that the fragment match ignored."""
    lead = old[: len(old) - len(old.lstrip())]
    trail = old[len(old.rstrip()) :]
    core = new[len(lead) :] if new.startswith(lead) else new.lstrip()
    if trail and core.endswith(trail):
        return core[: -len(trail)]
    return core if "\n" in core else core.rstrip()


def _pair(line: str, old_lines: list[str], i1: int, i2: int) -> int | None:
    """The replaced old line ``line`` was written from, if one is similar enough."""
    best, best_ratio = None, 0.5
    for i in range(i1, i2):
        candidate = difflib.SequenceMatcher(None, old_lines[i].strip(), line.strip())
        if candidate.quick_ratio() > best_ratio and candidate.ratio() > best_ratio:
            best, best_ratio = i, candidate.ratio()
    return best


def _rewrite(
    line: str,
    paired: tuple[str, str] | None,
    indent: IndentMap | None,
    drift: _Drift,
    path: str,
    *,
    loose_lead: bool = False,
) -> str:
    """One changed line of ``new`` in the file's terms.

    With ``loose_lead`` odd spaces in the line's indentation are spaces (the
    match read the quoted lines' indentation that way).
    """
    if not line.strip():
        return ""
    if loose_lead:
        lead, body = indentation.model_leading(line)
    else:
        lead = indentation.leading(line)
        body = line[len(lead) :]
    if indent is not None and not indent.is_identity:
        mapped = indent.apply(lead)
        if mapped is None:
            raise InvalidRequest(
                messages.INDENT_UNMAPPABLE.format(path=path, line=line.strip()), path=path
            )
        lead = mapped
    if drift.folds:
        body = _undo_punctuation(body, paired, drift)
    if drift.adds_trailing:
        body = body.rstrip()
    return lead + body


def _undo_punctuation(body: str, paired: tuple[str, str] | None, drift: _Drift) -> str:
    """Characters kept from the old line take the file's; new ones are folded back."""
    if paired is None:
        return drift.undo(body)
    model_core, file_core = paired[0].strip(), paired[1].strip()
    pieces = punctuation.align(model_core, file_core)
    if pieces is None:
        return drift.undo(body)
    # The file's text for each character of the model's old line.
    file_for: list[str] = []
    for model_piece, file_piece in pieces:
        if len(model_piece) == len(file_piece):
            file_for.extend(file_piece)
        elif model_piece:
            file_for.extend([file_piece] + [""] * (len(model_piece) - 1))
        elif file_for:
            file_for[-1] += file_piece
    out = []
    ops = difflib.SequenceMatcher(None, model_core, body, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            out.append("".join(file_for[i1:i2]))
        else:
            out.append(drift.undo(body[j1:j2]))
    return "".join(out)


def _join(lines: list[Line], ends_with_newline: bool, doc: Document) -> str:
    parts = []
    for index, line in enumerate(lines):
        last = index == len(lines) - 1
        if last and not ends_with_newline:
            parts.append(line.text)
        else:
            parts.append(line.text + (line.eol or doc.eol))
    return "".join(parts)
