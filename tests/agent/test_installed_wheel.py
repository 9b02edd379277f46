"""surehand as a person gets it: a wheel built from the sources, installed in a fresh
virtual environment, run from a folder that is not the checkout.

The environment has the wheel alone, and the dependencies of the test's own
environment on its path (a ``.pth`` file naming its site-packages, whose own
``.pth`` files, the checkout's editable install among them, are not read).
Each command must then find its data in the installed package: the tasks
``eval-tasks`` runs by default, the demo's project, the version.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SOURCES = (
    "pyproject.toml",
    "README.md",
    "LICENSE",
    "editing",
    "agent",
    "lsp_server",
    "acp_server",
    "surehand",
)
TASKS = ROOT / "agent" / "tasks"


@dataclass(frozen=True)
class Installed:
    wheel: Path
    python: Path
    surehand: Path
    place: Path  # a folder outside the checkout to run in
    env: dict[str, str]

    def run(self, *argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.surehand), *argv],
            cwd=self.place,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


def _check(command: list[str], cwd: Path) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{command}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    work = tmp_path_factory.mktemp("wheel")
    # A copy of the sources, so that nothing the checkout has lying about (build/, an
    # egg-info) can reach the wheel, and the build leaves nothing in the checkout.
    source = work / "source"
    for name in SOURCES:
        if (ROOT / name).is_dir():
            ignored = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
            shutil.copytree(ROOT / name, source / name, ignore=ignored)
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    dist = work / "dist"
    _check([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(dist), str(source)], work)
    [wheel] = dist.glob("surehand-*.whl")

    venv = work / "venv"
    _check([sys.executable, "-m", "venv", "--without-pip", str(venv)], work)
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index"]
    _check([*pip, "--no-deps", str(wheel)], work)
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "surehand-test-dependencies.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8"
    )

    place = work / "elsewhere"
    (place / "home").mkdir(parents=True)
    env = {
        "PATH": f"{venv / 'bin'}:/usr/bin:/bin",
        "HOME": str(place / "home"),
        "XDG_CONFIG_HOME": str(place / "home" / ".config"),
        "XDG_STATE_HOME": str(place / "state"),
        "TMPDIR": str(tmp_path_factory.mktemp("tmp")),
        "NO_COLOR": "1",
    }
    return Installed(wheel, python, venv / "bin" / "surehand", place, env)


def test_the_wheel_carries_every_task_file_and_the_demo(installed: Installed):
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    task_files = {
        str(p.relative_to(ROOT))
        for p in TASKS.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.name != ".gitattributes"
    }
    assert len(task_files) > 30
    assert task_files <= names, sorted(task_files - names)
    assert {"agent/demo/script.json", "agent/demo/project/dateparse.py"} <= names
    assert {"acp_server/agent.py", "agent/loop/warm_up.py", "surehand/terminal/review.py"} <= names


def test_the_installed_package_is_the_one_that_runs(installed: Installed):
    done = subprocess.run(
        [
            str(installed.python),
            "-c",
            "import acp_server, agent, editing, lsp_server, surehand; print(agent.__file__)",
        ],
        cwd=installed.place,
        env=installed.env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).is_relative_to(installed.python.parents[1])


def test_version(installed: Installed):
    version = installed.wheel.name.split("-")[1]
    done = installed.run("--version")
    assert (done.returncode, done.stdout) == (0, f"surehand {version}\n"), done.stderr


def test_eval_tasks_runs_the_tasks_that_come_with_the_wheel(installed: Installed):
    helped = installed.run("eval-tasks", "--help")
    assert helped.returncode == 0, helped.stderr
    assert "the tasks that come with surehand" in " ".join(helped.stdout.split())

    out = installed.place / "records.json"
    done = installed.run("eval-tasks", "--scripted", "--json", str(out))

    names = sorted(p.name for p in TASKS.iterdir() if (p / "task.json").is_file())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.splitlines()[-1] == f"passed {len(names)} of {len(names)} (100%)"
    records = json.loads(out.read_text(encoding="utf-8"))["tasks"]
    assert [r["task"] for r in records] == names
    assert all(r["passed"] for r in records)
    assert "no task directories" not in done.stderr


def test_demo(installed: Installed):
    done = installed.run("demo", timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Task: fix the failing date test." in done.stdout
    assert "The project was not changed" in done.stdout


def test_config_names_the_endpoint(installed: Installed):
    done = installed.run("config", "--workspace", str(installed.place))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].startswith(
        "Endpoint https://api.openai.com/v1 from the openai package's default"
    )
