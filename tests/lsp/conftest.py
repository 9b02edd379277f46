"""Fixtures of the LSP tests: a project on disk and editors opened on it.

The project holds the calc.py of ``tests.support.scripted_task`` unless a
module says otherwise by overriding ``project_files``; its servers are
configured with the scripted model, and whatever a module's
``editor_settings`` adds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.lsp.editor import Editors, settings_for
from tests.lsp.gate import gate_folder
from tests.support.openai_server import ScriptedServer
from tests.support.scripted_task import CALC


@pytest.fixture
def project_files() -> dict[str, str]:
    return {"calc.py": CALC}


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
        openai_server.base_url,
        openai_server.model,
        tmp_path / "traces",
        **{"sandboxReadOnlyPaths": [str(gate_folder(tmp_path))], **editor_settings},
    )
    editors = Editors(project, settings)
    yield editors
    await editors.close()
