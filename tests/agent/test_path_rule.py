"""One path rule (``editing.disk.paths``) decides for the command line, the overlay and the copy.

A path the rule refuses to change is refused by ``Workdir`` (``surehand
apply-patch``), by the overlay's ``writable`` and by the shadow copy's
``write``; a path it allows is written by all three.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.execution.shadow import ShadowCopy
from agent.staging.workspace import Overlay, PathRefused
from editing.disk.paths import OutsideRoot, resolve_inside, why_refused
from editing.disk.workdir import Workdir
from editing.errors import InvalidRequest

REFUSED = ["", "  ", "/etc/passwd", "../escape.py", "pkg/../../escape.py", ".git/config"]
REFUSED += ["pkg/.git/HEAD", "..\\escape.py"]
# a name that would not read as what it is: an escape sequence, a bidi override, a
# carriage return, a zero-width space, a line separator, DEL
REFUSED += ["evil.py\x1b[2K\x1b[1GREADME.md", "a\u202etxt.py", "x\ry.py", "pkg\u200b/a.py"]
REFUSED += ["a\u2028b.py", "a\x7f.py"]
ALLOWED = ["app.py", "pkg/new.py", "./pkg/util.py", "docs/.gitignore"]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "pkg").mkdir(parents=True)
    (root / "app.py").write_text("A = 1\n")
    (root / "pkg/util.py").write_text("U = 1\n")
    return root


@pytest.mark.parametrize("path", REFUSED)
def test_refused_everywhere(tree: Path, path: str):
    assert why_refused(path, to_change=True) is not None
    with pytest.raises(InvalidRequest):
        Workdir(tree).resolve(path)
    with pytest.raises(PathRefused):
        Overlay(tree).writable(path)
    with ShadowCopy(tree) as shadow:
        assert shadow.write({path: "x\n"}).refused == [path]
    assert sorted(p.name for p in tree.parent.iterdir()) == ["tree"]


@pytest.mark.parametrize("path", ALLOWED)
def test_allowed_everywhere(tree: Path, path: str):
    assert why_refused(path, to_change=True) is None
    assert Workdir(tree).resolve(path) == tree.resolve() / path.removeprefix("./")
    assert Overlay(tree).writable(path) == path.removeprefix("./")
    with ShadowCopy(tree) as shadow:
        report = shadow.write({path: "x\n"})
        assert report.refused == []
        assert (shadow.root / path).read_text() == "x\n"


def test_git_can_be_read_but_not_changed():
    assert why_refused(".git/config") is None
    assert why_refused(".git/config", to_change=True) == "is inside .git, which is not edited"


def test_a_symbolic_link_out_is_refused(tree: Path, tmp_path: Path):
    (tmp_path / "outside").mkdir()
    (tree / "out").symlink_to(tmp_path / "outside")
    with pytest.raises(OutsideRoot, match="symbolic link"):
        resolve_inside(tree.resolve(), "out/x.py")
