"""Create, delete and rename in a real Neovim: exactly the proposed files, and ``applied``.

Neovim applies a ``CreateFile`` by making the file and opening it as a
buffer holding ``"\\n"`` (an empty buffer with 'eol'), then the text edit
into it; ``RenameFile`` and ``DeleteFile`` act on disk (and on loaded
buffers). The server must read the outcome from the texts, not call a new
file's fresh buffer "changed" and send its creation again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.nvim.test_neovim import make_project, run_neovim
from tests.support.openai_server import ScriptedServer, Turn
from tests.support.scripted_task import CALC, CREATE, DELETE, FINISH, FIX, FIXED, MOVE, UTIL

pytestmark = pytest.mark.slow


def project_with_files(tmp_path: Path) -> Path:
    root = make_project(tmp_path)
    (root / "old.py").write_text("OLD = 1\n", encoding="utf-8")
    (root / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    return root


def buffer(seen: dict[str, Any], root: Path, relative: str) -> str | None:
    return seen["buffers"].get(str(root / relative))


def sent_operations(seen: dict[str, Any]) -> list[str]:
    return [
        c.get("kind", "edit") for e in seen["edits"] for c in e["edit"].get("documentChanges", [])
    ]


def test_a_new_file(tmp_path: Path, openai_server: ScriptedServer):
    root = project_with_files(tmp_path)
    openai_server.add(Turn(tool_calls=[CREATE]), Turn(tool_calls=[FINISH]))

    seen = run_neovim(tmp_path, openai_server, root, ["Apply"])
    assert seen["result"]["outcome"] == "applied", seen["result"]
    assert seen["result"]["files"] == {"util.py": "applied"}
    assert buffer(seen, root, "util.py") == UTIL
    assert sent_operations(seen) == ["create", "edit"], "sent once, never again"


def test_a_deleted_file(tmp_path: Path, openai_server: ScriptedServer):
    root = project_with_files(tmp_path)
    openai_server.add(Turn(tool_calls=[DELETE]), Turn(tool_calls=[FINISH]))

    seen = run_neovim(tmp_path, openai_server, root, ["Apply"])

    assert seen["result"]["outcome"] == "applied", seen["result"]
    assert seen["result"]["files"] == {"old.py": "applied"}
    assert not (root / "old.py").exists()
    assert sent_operations(seen) == ["delete"]


def test_a_renamed_file_with_its_change(tmp_path: Path, openai_server: ScriptedServer):
    root = project_with_files(tmp_path)
    openai_server.add(Turn(tool_calls=[MOVE]), Turn(tool_calls=[FINISH]))

    seen = run_neovim(tmp_path, openai_server, root, ["Apply"])

    assert seen["result"]["outcome"] == "applied", seen["result"]
    assert seen["result"]["files"] == {"pkg/b.py": "applied"}
    assert not (root / "a.py").exists()
    assert buffer(seen, root, "pkg/b.py") == "def f():\n    return 2\n"
    assert sent_operations(seen) == ["rename", "edit"]
    (details,) = seen["result"]["details"]
    assert details["operation"] == "rename" and details["operationAccepted"] is True
    assert details["source"] == "a.py"


def test_all_three_with_text_edits_in_one_proposal(tmp_path: Path, openai_server: ScriptedServer):
    root = project_with_files(tmp_path)
    openai_server.add(Turn(tool_calls=[FIX, CREATE, DELETE, MOVE]), Turn(tool_calls=[FINISH]))

    seen = run_neovim(tmp_path, openai_server, root, ["Apply"])

    assert seen["result"]["outcome"] == "applied", seen["result"]
    assert seen["result"]["files"] == {
        "calc.py": "applied",
        "util.py": "applied",
        "old.py": "applied",
        "pkg/b.py": "applied",
    }
    assert seen["text"] == FIXED
    assert (root / "calc.py").read_text(encoding="utf-8") == CALC, "edits land unsaved"
    assert buffer(seen, root, "util.py") == UTIL
    assert buffer(seen, root, "pkg/b.py") == "def f():\n    return 2\n"
    assert not (root / "old.py").exists() and not (root / "a.py").exists()
    assert sorted(sent_operations(seen)) == sorted(
        ["edit", "create", "edit", "delete", "rename", "edit"]
    ), "one applyEdit, nothing sent twice"
    assert len(seen["edits"]) == 1
    assert seen["result"]["summary"].startswith("calc.py: accepted: add adds (line 2). util.py")
