"""Fixtures of the LSP tests: a project on disk and editors opened on it.

A module says what its project holds by overriding ``project_files``, and
what its servers are configured with, beyond the scripted model, by
overriding ``editor_settings``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.lsp.editor import Editors, settings_for
from tests.support.openai_server import ScriptedServer


@pytest.fixture
def project_files() -> dict[str, str]:
    return {}


@pytest.fixture
def editor_settings() -> dict[str, Any]:
    return {}


@pytest.fixture
def project(tmp_path: Path, project_files: dict[str, str]) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    for name, text in project_files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest_asyncio.fixture
async def editors(
    project: Path,
    openai_server: ScriptedServer,
    tmp_path: Path,
    editor_settings: dict[str, Any],
):
    settings = settings_for(
        openai_server.base_url, openai_server.model, tmp_path / "traces", **editor_settings
    )
    editors = Editors(project, settings)
    yield editors
    await editors.close()
