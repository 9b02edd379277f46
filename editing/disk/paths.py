"""The one rule for the paths a request may name inside a directory.

A path is relative to the directory and stays in it: an empty or absolute
path, ``..`` and a path with a control, bidi or other invisible character
(``editing.visible``: it would not read as what it is) are refused, and so
is a symbolic link (of the path or any folder on it) that leads out.
A path that is to be changed must also not be inside ``.git``. The
command line's ``Workdir``, the agent's overlay and the shadow copy
commands run in all decide with these functions.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from ..visible import escape, hidden_in

GIT = ".git"


class OutsideRoot(ValueError):
    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def why_refused(relative: str, *, to_change: bool = False) -> str | None:
    """Why ``relative`` may not name a path inside the directory, None when it may.

    Looks at the text only, never at the file system (see ``resolve_inside``
    for symbolic links). ``to_change``: the path is to be written or
    deleted, so one inside ``.git`` is refused too.
    """
    pure = PurePosixPath(relative.replace("\\", "/"))
    if not relative.strip() or pure.is_absolute() or Path(relative).is_absolute():
        return "is not a path relative to the directory"
    hidden = hidden_in(relative)
    if hidden is not None:
        return (
            f"has the control or invisible character {escape(hidden)} (U+{ord(hidden):04X}) "
            "in its name, which would not show as what it is; name the file without it"
        )
    if ".." in pure.parts:
        return "goes outside the directory with '..'"
    if to_change and GIT in pure.parts:
        return "is inside .git, which is not edited"
    return None


def clean(relative: str, *, to_change: bool = False) -> str:
    """``relative`` as the tools read it, or ``OutsideRoot``: the agent overlay's rule
    (``Overlay.relative``) for a path that is not absolute, on text alone.

    Blanks around it are dropped (a control character is refused by the rule,
    not dropped), ``\\`` separates like ``/``, and ``./`` prefixes, ``.``
    parts, doubled and trailing separators go: ``./src//a.py`` is
    ``src/a.py``. The directory itself is ``.``; to be changed it is refused.
    """
    candidate = relative.strip(" ") or "."
    why = why_refused(candidate, to_change=to_change)
    if why is not None:
        raise OutsideRoot(why)
    cleaned = PurePosixPath(*PurePosixPath(candidate.replace("\\", "/")).parts).as_posix()
    if to_change and cleaned == ".":
        raise OutsideRoot("is the directory itself, not a file in it")
    return cleaned


def resolve_inside(root: Path, relative: str, *, to_change: bool = False) -> Path:
    """``root / relative`` if it stays inside ``root`` (a resolved path), else ``OutsideRoot``."""
    why = why_refused(relative, to_change=to_change)
    if why is not None:
        raise OutsideRoot(why)
    path = root.joinpath(*PurePosixPath(relative.replace("\\", "/")).parts)
    if not path.resolve().is_relative_to(root):
        raise OutsideRoot("leads outside the directory through a symbolic link")
    return path
