"""``surehand eval-tasks``: the bundled tasks, a broken solution, and a real endpoint.

The bundled tasks are package data (``agent/tasks``); ``test_installed_wheel``
runs them from an installed wheel.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from surehand.terminal import eval_tasks
from tests.support.openai_server import Call, ScriptedServer, Turn

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[2]
TASKS = ROOT / "agent" / "tasks"
TASK_NAMES = sorted(p.name for p in TASKS.iterdir() if (p / "task.json").is_file())
RECORD_FIELDS = {
    "task",
    "passed",
    "steps",
    "prompt_tokens",
    "completion_tokens",
    "tokens",
    "seconds",
    "ending",
    "message",
    "changed",
    "calls",
    "failed_calls",
    "verify_exit",
    "verify_output",
    "trace",
}


@pytest.fixture(autouse=True)
def private_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Traces under the test's directory; no endpoint from the environment."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "SUREHAND_MODEL"):
        monkeypatch.delenv(name, raising=False)


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def load_task(name: str) -> dict:
    return json.loads((TASKS / name / "task.json").read_text(encoding="utf-8"))


def copy_task(name: str, into: Path, solution: list[dict] | None = None) -> Path:
    """A copy of task ``name`` in ``into``, with ``solution`` in place of its own if given."""
    target = into / name
    shutil.copytree(TASKS / name, target, ignore=shutil.ignore_patterns("__pycache__"))
    if solution is not None:
        data = load_task(name) | {"solution": solution}
        (target / "task.json").write_text(json.dumps(data), encoding="utf-8")
    return target


def test_the_default_tasks_are_the_packages():
    assert Path(str(eval_tasks.bundled_tasks())) == TASKS
    assert eval_tasks.find_tasks(TASKS) == [TASKS / name for name in TASK_NAMES]


def test_every_bundled_solution_passes_and_nothing_is_left_behind(tmp_path: Path):
    assert len(TASK_NAMES) >= 8
    before = snapshot(TASKS)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    out = tmp_path / "records.json"
    env = os.environ | {"TMPDIR": str(temporary)}
    # No DIR, and not from the checkout: the default is the package's own tasks.
    command = [sys.executable, "-m", "surehand.terminal.commands", "eval-tasks", "--scripted"]
    done = subprocess.run(
        [*command, "--json", str(out)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == f"passed {len(TASK_NAMES)} of {len(TASK_NAMES)} (100%)"
    assert [line.split(":")[0] for line in lines[: len(TASK_NAMES)]] == [
        f"PASS {name}" for name in TASK_NAMES
    ]
    data = json.loads(out.read_text(encoding="utf-8"))
    assert (data["scripted"], data["passed"], data["total"]) == (
        True,
        len(TASK_NAMES),
        len(TASK_NAMES),
    )
    records = {r["task"]: r for r in data["tasks"]}
    assert list(records) == TASK_NAMES
    for name, record in records.items():
        solution = load_task(name)["solution"]
        assert set(record) == RECORD_FIELDS
        assert record["passed"] and record["verify_exit"] == 0, (name, record)
        assert (record["ending"], record["steps"]) == ("finished", len(solution))
        assert record["calls"] == sum(len(turn["call"]) for turn in solution)
        assert record["tokens"] == 0 and record["seconds"] > 0 and record["changed"]
        assert Path(record["trace"]).is_relative_to(tmp_path / "state")
        expected_failures = 1 if name == "ambiguous_edit_recovery" else 0
        assert record["failed_calls"] == expected_failures, name
    assert sorted(records["split_validators"]["changed"]) == ["app.py", "validators.py"]
    assert snapshot(TASKS) == before
    assert list(temporary.iterdir()) == []


@pytest.mark.parametrize("breakage", ["finish_first", "fix_removed"])
def test_a_broken_solution_is_reported_as_failed(
    breakage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    solution = load_task("page_off_by_one")["solution"]
    fix = next(i for i, turn in enumerate(solution) if turn["call"][0]["tool"] == "edit")
    if breakage == "finish_first":
        broken = [*solution[:fix], solution[-1], *solution[fix:-1]]
    else:
        broken = solution[:fix] + solution[fix + 1 :]
    task = copy_task("page_off_by_one", tmp_path / "tasks", broken)
    out = tmp_path / "records.json"

    assert eval_tasks.main([str(task.parent), "--scripted", "--json", str(out)]) == 1

    printed = capsys.readouterr().out
    assert printed.startswith("FAIL page_off_by_one: finished in ")
    assert "verify exit 1: FAILED (failures=1)" in printed
    assert printed.splitlines()[-1] == "passed 0 of 1 (0%)"
    [record] = json.loads(out.read_text(encoding="utf-8"))["tasks"]
    assert (record["passed"], record["ending"], record["verify_exit"]) == (False, "finished", 1)
    assert "test_page_range_includes_the_last_page" in record["verify_output"]
    assert record["changed"] == []


def test_a_task_through_the_real_client_and_endpoint(
    openai_server: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    solution = load_task("money_in_cents")["solution"]
    openai_server.add(
        *(
            Turn(turn.get("say", ""), [Call(c["tool"], c["args"]) for c in turn["call"]])
            for turn in solution
        )
    )
    out = tmp_path / "records.json"
    argv = [str(TASKS / "money_in_cents"), "--base-url", openai_server.base_url]

    assert eval_tasks.main([*argv, "--model", openai_server.model, "--json", str(out)]) == 0

    printed = capsys.readouterr()
    assert printed.out.splitlines()[-1] == "passed 1 of 1 (100%)"
    assert printed.err.startswith(
        f"eval-tasks: Endpoint {openai_server.base_url} from command line · model "
        f"{openai_server.model} from command line · key "
    )
    data = json.loads(out.read_text(encoding="utf-8"))
    assert (data["scripted"], data["model"]) == (False, openai_server.model)
    [record] = data["tasks"]
    assert record["passed"] and record["ending"] == "finished"
    assert record["steps"] == len(solution) == len(openai_server.completions)
    assert (record["prompt_tokens"], record["completion_tokens"]) == (
        10 * len(solution),
        5 * len(solution),
    )
    assert sorted(record["changed"]) == ["invoice.py", "money.py"]
    tools = {t["function"]["name"]: t for t in openai_server.completions[0].body["tools"]}
    assert {"view_file", "edit", "apply_patch", "run_command", "finish"} <= set(tools)
    assert tools["edit"]["function"]["parameters"]["required"] == [
        "path",
        "old",
        "new",
        "replace_all",
        "description",
    ]


def test_an_endpoint_without_the_model_stops_the_run(
    openai_server: ScriptedServer, capsys: pytest.CaptureFixture[str]
):
    argv = [str(TASKS), "--base-url", openai_server.base_url, "--model", "missing-model"]

    assert eval_tasks.main(argv) == 2

    printed = capsys.readouterr()
    assert printed.out.startswith(f"FAIL {TASK_NAMES[0]}: model_error in 1 steps")
    assert printed.out.splitlines()[-1] == f"passed 0 of {len(TASK_NAMES)} (0%)"
    assert "stopped, the model endpoint failed" in printed.err
    assert "'missing-model'" in printed.err
    assert len(openai_server.completions) == 1


def test_configuration_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert (
        eval_tasks.main([str(TASKS / "page_off_by_one"), "--base-url", "http://127.0.0.1:9"]) == 2
    )
    assert "No model configured" in capsys.readouterr().err
    assert eval_tasks.main([str(tmp_path), "--scripted"]) == 2
    assert "no task directories" in capsys.readouterr().err
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "task.json").write_text("{", encoding="utf-8")
    assert eval_tasks.main([str(tmp_path), "--scripted"]) == 2
    assert "task.json" in capsys.readouterr().err
