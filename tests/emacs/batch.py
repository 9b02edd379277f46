"""Running one of the step runners (``*_review.el``, ``eglot_scenario.el``) in ``emacs --batch``.

A project of ``files`` is written under ``tmp_path``, the runner gets a spec
(the server's command and settings, the project, the file first visited,
the steps) and writes what it recorded as JSON; Emacs runs with a home of
its own, so no init file or session of the person's is read.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.lsp.editor import settings_for
from tests.support.openai_server import ScriptedServer


def run_steps(
    emacs: str,
    script: Path,
    tmp_path: Path,
    model: ScriptedServer,
    *,
    files: dict[str, str],
    steps: list[dict],
    settings: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], str, Path]:
    """What the runner recorded, Emacs's exit and stderr in words, and the project."""
    root = tmp_path / "project"
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    result = tmp_path / "result.json"
    spec = {
        "cmd": [sys.executable, "-m", "lsp_server"],
        "settings": {
            **settings_for(model.base_url, model.model, tmp_path / "traces"),
            **(settings or {}),
        },
        "root": str(root),
        "home": str(home),
        "file": str(root / "calc.py"),
        "steps": steps,
        "result": str(result),
    }
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    done = subprocess.run(
        [emacs, "--batch", "-q", "-l", str(script), str(spec_file)],
        capture_output=True,
        text=True,
        timeout=150,
        env={**os.environ, "HOME": str(home)},
        cwd=tmp_path,
        check=False,
    )
    report = f"exit {done.returncode}\nstderr: {done.stderr[-4000:]}"
    assert result.exists(), report
    return json.loads(result.read_text(encoding="utf-8")), report, root
