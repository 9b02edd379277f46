"""A workspace of ``/`` or of the home folder is refused before anything is read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.config.project_root import why_not_a_project

HOME = Path("/home/ana")


@pytest.mark.parametrize(
    ("root", "where"),
    [
        (Path("/"), "the file system's root"),
        (HOME, "your home folder"),
        (Path("/home"), "a folder that holds your home folder"),
    ],
)
def test_the_root_the_home_folder_and_above_are_refused(root: Path, where: str):
    why = why_not_a_project(root, home=HOME)
    assert why is not None and where in why and str(root) in why


@pytest.mark.parametrize("root", [HOME / "src" / "calc", Path("/srv/project"), Path("/home/bob")])
def test_a_project_folder_is_a_workspace(root: Path):
    assert why_not_a_project(root, home=HOME) is None


def test_surehand_run_in_the_home_folder_stops_before_it_asks_the_model(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".netrc").write_text("machine example.com password hunter2\n")
    env = {**os.environ, "HOME": str(home), "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "surehand"),
            "run",
            "--workspace",
            str(home),
            "--model",
            "m",
            "x",
        ],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2, done
    assert "your home folder" in done.stderr + done.stdout
