"""Which folders can be a workspace.

The agent reads, stages and (for commands) copies the workspace; a workspace
of ``/`` or of the home folder would put every file of the machine or of the
user (keys, mail, other projects) in reach of the model and of the commands
it writes. An editor can end up there without the user meaning it (Neovim
started in ``~`` with no project marker above the file), so such a root is
refused with words that say what to do instead.
"""

from __future__ import annotations

from pathlib import Path


def why_not_a_project(root: Path, home: Path | None = None) -> str | None:
    """Why ``root`` (resolved) cannot be a workspace, or None when it can."""
    home = (home if home is not None else Path("~").expanduser()).resolve()
    if root == Path(root.anchor):
        where = "the file system's root"
    elif root == home:
        where = "your home folder"
    elif root in home.parents:
        where = "a folder that holds your home folder"
    else:
        return None
    return (
        f"surehand works in a project folder, and {root} is {where}: open the project's "
        "own folder (the one with its .git, pyproject.toml or package.json) instead."
    )
