"""The README is a front door: short, with the two commands that try surehand, the ways
to install it, a picture of a review, and a way into every page of docs/.

Everything else lives in docs/, by reader; ``docs/README.md`` is its index and
reaches every page. (That each link resolves is ``test_doc_links``.)
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DEMO = "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/surehand demo"


def linked(page: Path) -> set[Path]:
    """The files ``page`` links to (relative links only, anchors dropped)."""
    targets = re.findall(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)", page.read_text(encoding="utf-8"))
    return {(page.parent / t).resolve() for t in targets if not re.match(r"[a-z]+:", t)}


def shell_blocks(text: str) -> list[str]:
    return [b.strip() for b in re.findall(r"```sh\n(.*?)```", text, re.S)]


def test_the_readme_is_short():
    assert len(README.splitlines()) <= 250


def test_the_two_commands_are_there_as_they_run():
    blocks = shell_blocks(README)
    assert DEMO in blocks
    assert "bash .ci/run" in blocks
    # the tests command is the script CI runs, which says so itself
    assert "# Usage: bash .ci/run" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_every_way_to_install_is_shown():
    install = README[
        README.index("## Install") : README.index("\n## ", README.index("## Install") + 1)
    ]
    for way in (
        "pip install -e .",
        "-m build --wheel",
        "pip wheel --no-deps . -w dist",
        "pip install dist/surehand-*.whl",
        "pipx install .",
        "[acp]",
    ):
        assert way in install, way


def test_a_picture_of_a_review():
    (picture,) = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", README)
    assert (ROOT / picture).is_file()


def test_every_editor_page_is_one_click_from_the_readme():
    editors = set((ROOT / "docs" / "editors").glob("*.md")) - {ROOT / "docs/editors/README.md"}
    assert editors
    assert editors <= linked(ROOT / "README.md")
    assert ROOT / "docs" / "acp.md" in linked(ROOT / "README.md")


def test_the_docs_index_reaches_every_page():
    index = ROOT / "docs" / "README.md"
    reached = linked(index) | linked(ROOT / "docs" / "editors" / "README.md")
    pages = set((ROOT / "docs").rglob("*.md")) - {index}
    assert sorted(p.relative_to(ROOT) for p in pages - reached) == []
    assert index in linked(ROOT / "README.md")
