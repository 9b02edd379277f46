"""surehand's non-modal review in Emacs with eglot (Debian ``emacs-nox`` + ``elpa-eglot``).

``eglot_review.el`` runs in ``emacs --batch``: eglot manages calc.py, the
ask goes through ``eglot-execute-command``, and the user accepts one hunk
and rejects the other through ``eglot-code-actions``. eglot sends its
didChange only after a command returns (and after an idle time): what
landed is read from those, never from a wait.

CI installs Emacs and eglot, so there a missing one fails the test instead
of skipping it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lsp.editor import settings_for
from tests.support.openai_server import ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH, FIX, FIXED, edit

HERE = Path(__file__).parent
EMACS = shutil.which("emacs")
SUB = edit(
    "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return a - b  # sub\n", "sub noted"
)


def has_eglot() -> str:
    """Why Emacs with eglot cannot run here ("" when it can)."""
    if EMACS is None:
        return "no emacs (apt-get install emacs-nox elpa-eglot)"
    found = subprocess.run(
        [EMACS, "--batch", "-q", "--eval", "(require 'eglot)"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return "" if found.returncode == 0 else "no eglot (apt-get install elpa-eglot)"


@pytest.fixture(scope="module")
def emacs() -> str:
    why = has_eglot()
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"Emacs with eglot must be tested in CI: {why}")
        pytest.skip(why)
    assert EMACS is not None
    return EMACS


def run_emacs(emacs: str, tmp_path: Path, model: ScriptedServer, steps: list[dict]) -> dict:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text(CALC, encoding="utf-8")
    result = tmp_path / "result.json"
    spec = {
        "cmd": [sys.executable, "-m", "lsp_server"],
        "settings": settings_for(model.base_url, model.model, tmp_path / "traces"),
        "file": str(root / "calc.py"),
        "task": "fix add",
        "steps": steps,
        "result": str(result),
    }
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [emacs, "--batch", "-q", "-l", str(HERE / "eglot_review.el"), str(spec_file)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    report = f"exit {done.returncode}\nstderr: {done.stderr[-4000:]}"
    assert result.exists(), report
    seen = json.loads(result.read_text(encoding="utf-8"))
    assert done.returncode == 0 and "error" not in seen, seen.get("error", "") + "\n" + report
    assert (root / "calc.py").read_text(encoding="utf-8") == CALC, "nothing written to disk"
    return seen


def test_accept_a_hunk_through_a_code_action(
    emacs: str, tmp_path: Path, openai_server: ScriptedServer
):
    openai_server.add(Turn(tool_calls=[FIX, SUB]), Turn(tool_calls=[FINISH]))
    steps = [
        {"line": 1, "title": "surehand: Accept hunk"},
        {"line": 5, "title": "surehand: Reject hunk"},
    ]

    seen = run_emacs(emacs, tmp_path, openai_server, steps)

    assert seen["asked"]["outcome"] == "started", seen["asked"]
    assert [d["line"] for d in seen["seen"][0]] == [1, 5]
    assert seen["seen"][0][0]["message"].startswith("surehand proposes: add adds")
    assert seen["offered"][0][:2] == [
        "surehand: Accept hunk: add adds",
        "surehand: Reject hunk: add adds",
    ]
    assert "surehand: Show diff" not in seen["offered"][0], "eglot cannot show documents"
    assert [d["line"] for d in seen["seen"][1]] == [5]
    assert seen["outcome"] == (
        "calc.py: accepted: add adds (line 2), rejected: sub noted (line 6)."
    ), "the outcome, as eglot shows the server's message"
    assert seen["text"] == FIXED
    assert seen["modified"] is True


SPOOF = "\x1b[2K\x1b[1G"  # erase the line, back to column 1
RLO = "\u202e"  # right-to-left override
SPOOF_LABEL = f"tidy{SPOOF}add adds{RLO}exe.py"
SPOOF_LINE = f"    return a + b  # {SPOOF}+    return a + b\n"
SPOOF_FIX = edit("def add(a, b):\n    return a - b\n", f"def add(a, b):\n{SPOOF_LINE}", SPOOF_LABEL)
CAPTURE = HERE / "spoof_capture.txt"
"""What Emacs showed in a run of the test below, kept as evidence (the test checks it is
what Emacs shows; ``SUREHAND_WRITE_CAPTURE=1`` rewrites it)."""


def test_a_spoofing_label_reaches_emacs_escaped(
    emacs: str, tmp_path: Path, openai_server: ScriptedServer
):
    """A label and an added line carrying ESC[2K ESC[1G and U+202E: flymake's text,
    the code action titles, the outcome and eglot's messages show the escapes, never
    the characters (which Emacs's bidi engine would reorder); the buffer gets the
    line exactly as the model wrote it."""
    openai_server.add(Turn(tool_calls=[SPOOF_FIX]), Turn(tool_calls=[FINISH]))
    steps = [{"line": 1, "title": "surehand: Accept hunk"}]

    seen = run_emacs(emacs, tmp_path, openai_server, steps)

    shown_label = "tidy\\x1b[2K\\x1b[1Gadd adds\\u202eexe.py"
    (flymake,) = seen["shown"]
    assert f": surehand proposes: {shown_label}\n" in flymake
    assert "+     return a + b  # \\x1b[2K\\x1b[1G+    return a + b" in flymake
    assert seen["offered"][0][0] == f"surehand: Accept hunk: {shown_label}"
    outcome = seen["outcome"]
    assert outcome.startswith(f"calc.py: accepted: {shown_label} (line 2)."), outcome
    assert seen["text"] == CALC.replace("    return a - b\n", SPOOF_LINE, 1), "applied as written"
    shown = [flymake, *seen["offered"][0], outcome, seen["messages"]]
    for text in shown:
        assert SPOOF not in text and RLO not in text and "\x1b" not in text, text
    capture = (
        "What Emacs (eglot, flymake) showed for a proposal whose label and added line\n"
        "carry ESC[2K ESC[1G and U+202E (tests/emacs/test_eglot.py, "
        "test_a_spoofing_label_reaches_emacs_escaped):\n\n"
        f"flymake diagnostic text:\n{flymake}\n\n"
        "code actions offered on line 2:\n"
        + "".join(f"  {title}\n" for title in seen["offered"][0])
        + f"\nthe outcome, as eglot shows the server's message:\n{outcome}\n"
    )
    if os.environ.get("SUREHAND_WRITE_CAPTURE"):
        CAPTURE.write_text(capture, encoding="utf-8")
    assert CAPTURE.read_text(encoding="utf-8") == capture, "the evidence kept is this run's"
