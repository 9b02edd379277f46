"""Every relative link in the README, docs/ and the other pages a reader lands on
(CONTRIBUTING, CHANGELOG, the clients' READMEs) leads somewhere: the file exists
and, when the link names a heading (``page.md#a-heading``), the page has that
heading. An image is a link too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOP = [
    "README.md",
    "CONTRIBUTING.md",
    "CHANGELOG.md",
    "client-vscode/README.md",
    "client-nvim/README.md",
]
PAGES = sorted([*(ROOT / name for name in TOP), *(ROOT / "docs").rglob("*.md")])
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as -."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, re.MULTILINE)}


def links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return [m.group(1) for m in LINK.finditer(text)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path):
    broken = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:, vscode:
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no such heading")
    assert broken == [], broken
