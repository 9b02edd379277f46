"""`:checkhealth surehand` gives the fix for each problem (issue 28), read whole.

It runs in a real headless Neovim with the plugin, on a project folder, and
every line of its report is checked: the server command, or how to get one
when none is found; a Python error as one line with its fix, never a
traceback; the settings in force once (as the server's `surehand config`
says them, the editor's on top); and a probe of the model endpoint against
the scripted OpenAI-compatible server: the models listed, a model that is
not among them, a key refused (401), an endpoint that does not answer. The
probe asks for the model list only: the scripted server sees one
`GET /v1/models` and nothing else.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.nvim.test_neovim import NVIM, make_project
from tests.support.openai_server import ScriptedServer

PLUGIN = Path(__file__).parent.parent.parent / "client-nvim"
SERVER = [sys.executable, "-m", "lsp_server"]

pytestmark = [pytest.mark.slow, pytest.mark.skipif(NVIM is None, reason="no nvim binary")]


def without_surehand_path() -> str:
    """PATH without any folder that holds a `surehand` command (or this venv's bin)."""
    here = str(Path(sys.executable).parent)
    return os.pathsep.join(
        d
        for d in os.environ.get("PATH", "").split(os.pathsep)
        if d and d != here and not (Path(d) / "surehand").exists()
    )


def checkhealth(
    tmp_path: Path, options: dict[str, Any], env: dict[str, str] | None = None
) -> list[str]:
    """The lines of `:checkhealth surehand` with `setup(options)`, in a project folder."""
    root = tmp_path / "project" if (tmp_path / "project").exists() else make_project(tmp_path)
    report = tmp_path / "health.txt"
    script = (
        f"vim.opt.rtp:prepend({json.dumps(str(PLUGIN))}) "
        f"require('surehand').setup(vim.json.decode({json.dumps(json.dumps(options))})) "
        "vim.cmd('checkhealth surehand') "
        f"vim.fn.writefile(vim.api.nvim_buf_get_lines(0, 0, -1, false), {json.dumps(str(report))}) "
        "vim.cmd('qall!')"
    )
    home = tmp_path / "xdg"
    full_env = {
        **os.environ,
        **{
            f"XDG_{kind}_HOME": str(home / kind.lower())
            for kind in ("CONFIG", "DATA", "STATE", "CACHE")
        },
        **(env or {}),
    }
    assert NVIM is not None
    done = subprocess.run(
        [NVIM, "--headless", "--clean", "-c", f"lua {script}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=root,
        env=full_env,
    )
    assert done.returncode == 0 and report.exists(), done.stderr
    lines = [line for line in report.read_text(encoding="utf-8").splitlines() if line.strip()]
    text = "\n".join(lines)
    assert "Traceback" not in text and 'File "' not in text, text
    return lines


def section(lines: list[str], title: str) -> list[str]:
    """The lines under the section `title` (up to the next section)."""
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    out = []
    for line in lines[start + 1 :]:
        if line.endswith("~"):
            break
        out.append(line.strip())
    return out


def settings(model: ScriptedServer, tmp_path: Path, **more: Any) -> dict[str, Any]:
    return {
        "model": model.model,
        "baseUrl": model.base_url,
        "traceDir": str(tmp_path / "t"),
        **more,
    }


def test_the_endpoint_answers_and_the_settings_show_once(
    tmp_path: Path, openai_server: ScriptedServer
):
    lines = checkhealth(
        tmp_path,
        {
            "cmd": SERVER,
            "enable": False,
            "settings": settings(openai_server, tmp_path, apiKey="sk-x"),
        },
    )

    server = section(lines, "surehand: server")
    assert server[0].startswith("- ✅ OK Neovim 0.")
    assert server[1] == f"- server command: {' '.join(SERVER)} (the cmd option)"
    assert server[2].startswith(f"- ✅ OK interpreter: {sys.executable} (Python 3.")
    assert server[3] == "- not running in this Neovim (it starts in a buffer of a project)"
    in_force = section(lines, "surehand: settings in force")
    assert in_force[:3] == [
        f"- endpoint: {openai_server.base_url} (from your setup{{}} settings)",
        "- model: scripted (from your setup{} settings)",
        "- key: apiKey, given directly (not shown) (from your setup{} settings)",
    ]
    assert in_force[3].startswith(
        ("- ✅ OK sandbox: bubblewrap. Commands run", "- ⚠️ WARNING sandbox:")
    )
    assert len(in_force) == 4, in_force
    assert [line for line in lines if line.strip().startswith("- model")] == [
        "- model: scripted (from your setup{} settings)"
    ], "the model in force, said once"
    assert "(not set)" not in "\n".join(lines) and "editor settings" not in "\n".join(lines)
    endpoint = section(lines, "surehand: model endpoint")
    assert endpoint == [
        f"- GET {openai_server.base_url}/models (the model list only: no code or file is sent)",
        "- ✅ OK the endpoint answered: 1 model (scripted)",
        "- ✅ OK the model scripted is among them",
    ]
    (request,) = openai_server.requests
    assert (request.method, request.path) == ("GET", "/v1/models")
    assert request.headers["authorization"] == "Bearer sk-x"
    assert request.body is None, "nothing of the workspace is sent"


def test_a_model_the_endpoint_does_not_have(tmp_path: Path, openai_server: ScriptedServer):
    options: dict[str, Any] = {
        "cmd": SERVER,
        "enable": False,
        "settings": settings(openai_server, tmp_path),
    }
    options["settings"]["model"] = "qwen-coder"
    lines = checkhealth(tmp_path, options)

    endpoint = section(lines, "surehand: model endpoint")
    assert endpoint[1] == "- ✅ OK the endpoint answered: 1 model (scripted)"
    assert endpoint[2:] == [
        "- ⚠️ WARNING the model qwen-coder is not among them",
        "- ADVICE:",
        "- set the model to one the endpoint has: setup({ settings = { model = 'scripted' } })",
    ]


def test_a_key_the_endpoint_refuses(tmp_path: Path):
    with ScriptedServer(api_key="sk-right") as model:
        options = {
            "cmd": SERVER,
            "enable": False,
            "settings": settings(model, tmp_path, apiKeyEnv="SUREHAND_TEST_KEY"),
        }
        lines = checkhealth(tmp_path, options, env={"SUREHAND_TEST_KEY": "sk-wrong"})
        (request,) = model.requests
    in_force = section(lines, "surehand: settings in force")
    assert in_force[2] == "- key: $SUREHAND_TEST_KEY (set; not shown) (from your setup{} settings)"
    endpoint = section(lines, "surehand: model endpoint")
    assert endpoint[1:] == [
        "- ❌ ERROR the endpoint refused the key (401): Incorrect API key provided: ***.",
        "- ADVICE:",
        "- the key sent: $SUREHAND_TEST_KEY (set; not shown)",
        "- set that variable to a valid key before starting Neovim, or name another with apiKeyEnv",
    ]
    assert request.headers["authorization"] == "Bearer sk-wrong"
    assert "sk-wrong" not in "\n".join(lines), "the key is never shown"


def test_an_endpoint_that_does_not_answer(tmp_path: Path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free, and nobody listens once closed
    url = f"http://127.0.0.1:{port}/v1"
    options = {"cmd": SERVER, "enable": False, "settings": {"model": "m", "baseUrl": url}}
    lines = checkhealth(tmp_path, options)

    assert section(lines, "surehand: model endpoint")[1:] == [
        f"- ❌ ERROR cannot reach {url}: ConnectionRefusedError: [Errno 111] Connection refused",
        "- ADVICE:",
        "- is the model server running? Check baseUrl (setup({ settings = { baseUrl = ... } }))",
    ]


def test_no_server_found_says_how_to_get_one(tmp_path: Path):
    lines = checkhealth(tmp_path, {"enable": False}, env={"PATH": without_surehand_path()})

    server = section(lines, "surehand: server")
    checkout = Path(__file__).parent.parent.parent
    home = str(Path.home())
    where = str(checkout).replace(home, "~", 1) if str(checkout).startswith(home) else str(checkout)
    venv = tmp_path / "xdg" / "data" / "nvim" / "surehand" / "venv"
    assert server[1:] == [
        "- ❌ ERROR no surehand server found (no `surehand` on PATH, no :SurehandInstall, "
        "no cmd or python option)",
        "- ADVICE:",
        f"- :SurehandInstall makes {venv} with the server from {where}, and the plugin finds it by itself",
        f"- or pip install {where} into an environment whose bin/ is on PATH (then `surehand` is found)",
        "- or setup({ python = '/path/to/python' }): an interpreter that has surehand installed",
    ]
    assert section(lines, "surehand: settings and model endpoint") == [
        "- checked once a server is found (see above)"
    ]


SYSTEM_PYTHON = shutil.which("python3", path="/usr/bin:/bin")


@pytest.mark.skipif(SYSTEM_PYTHON is None, reason="no system python3")
def test_an_interpreter_without_the_server_is_one_line_with_its_fix(tmp_path: Path):
    assert SYSTEM_PYTHON is not None
    lines = checkhealth(tmp_path, {"python": SYSTEM_PYTHON, "enable": False})

    server = section(lines, "surehand: server")
    assert server[1] == f"- server command: {SYSTEM_PYTHON} -m lsp_server (the python option)"
    assert server[2] == (
        f"- ❌ ERROR {SYSTEM_PYTHON} cannot run the server: "
        "ModuleNotFoundError: No module named 'lsp_server'"
    )
    assert server[3] == "- ADVICE:"
    assert server[4].startswith(f"- install surehand with it ({SYSTEM_PYTHON} -m pip install ")


@pytest.mark.skipif(SYSTEM_PYTHON is None, reason="no system python3")
def test_a_server_that_quits_at_start_is_said_once_not_for_every_file(tmp_path: Path):
    from tests.nvim.test_plugin import messages, run_plugin, snap

    assert SYSTEM_PYTHON is not None
    root = make_project(tmp_path)
    (root / "other.py").write_text("x = 1\n", encoding="utf-8")
    with ScriptedServer() as model:
        seen = run_plugin(
            tmp_path,
            model,
            root,
            [
                {"do": "sleep", "ms": 2000},  # it quits as it starts
                {"do": "cmd", "cmd": "edit other.py"},
                {"do": "cmd", "cmd": "edit pyproject.toml"},
                {"do": "sleep", "ms": 1000},
                {"do": "snapshot", "name": "files"},
            ],
            cmd=None,
            options={"python": SYSTEM_PYTHON},
            no_attach=True,
        )
    quit_line = "surehand: server quit at start (exit code 1); :checkhealth surehand"
    ours = [m for m in messages(seen) if m.startswith("surehand")]
    assert ours == [quit_line], "said once, whatever is opened after"
    shown = [n["message"] for n in seen["notified"]]
    assert shown == [quit_line], "Neovim's longer notice is kept for :SurehandMessages, not shown"
    assert snap(seen, "files")["status"] == "surehand: stopped"
    assert not any(n["level"] >= 4 for n in seen["notified"]), "no error level message"
