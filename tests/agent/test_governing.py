"""Files that change how tools run (``agent.staging.governing``) are named, ordinary files are not."""

from __future__ import annotations

import pytest

from agent.staging.governing import governs
from agent.staging.proposal import ProposedChange

GOVERNING = [
    ".surehand.toml",
    "sub/.surehand.toml",
    ".vscode/settings.json",
    ".vscode/tasks.json",
    ".envrc",
    ".env",
    ".env.local",
    ".gitignore",
    ".gitattributes",
    ".gitmodules",
    "pkg/.gitattributes",
    ".github/workflows/ci.yml",
    ".gitlab-ci.yml",
    ".venv/pyvenv.cfg",
    "pyvenv.cfg",
    ".venv/lib/python3.11/site-packages/evil.pth",
    "sitecustomize.py",
    ".npmrc",
    "pip.conf",
    ".cargo/config.toml",
    ".pre-commit-config.yaml",
    ".nvim.lua",
    ".dir-locals.el",
]
ORDINARY = [
    "app.py",
    "README.md",
    "docs/vscode.md",
    "src/env.py",
    "tests/test_git.py",
    "github/workflows.md",
    "pyproject.toml.md",
    "workflows/ci.yml",
]


@pytest.mark.parametrize("path", GOVERNING)
def test_governing_files_are_named_with_what_they_govern(path: str):
    what = governs(path)
    assert what is not None and len(what) > 10


@pytest.mark.parametrize("path", ORDINARY)
def test_ordinary_files_are_not(path: str):
    assert governs(path) is None


def test_a_change_governs_when_its_file_or_the_file_it_moved_from_does():
    assert ProposedChange(".envrc", None, "x\n", ("d",)).governs is not None
    assert ProposedChange("app.py", "a\n", "b\n", ("d",)).governs is None
    moved = ProposedChange("notes.txt", ".x\n", ".x\n", ("d",), source=".envrc")
    assert moved.governs is not None
