"""``python -m editing.disk.eval``: the report, the JSON record and the exit status."""

import json
import subprocess
import sys
from pathlib import Path


def write_case(directory: Path, case_id: str, request: dict, expect: dict) -> None:
    case = {
        "id": case_id,
        "category": "exact",
        "note": "",
        "files": {"a.py": "x = 1\ny = 2\n"},
        "request": request,
        "expect": expect,
    }
    (directory / f"{case_id}.json").write_text(json.dumps(case), encoding="utf-8")


def run_eval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "editing.disk.eval", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_scores_correct_missed_corrupt_and_skipped(tmp_path: Path):
    edit = {"tool": "edit", "path": "a.py", "old": "y = 2\n", "new": "y = 3\n"}
    write_case(tmp_path, "ok", edit, {"outcome": "applied", "files": {"a.py": "x = 1\ny = 3\n"}})
    write_case(tmp_path, "bad", edit, {"outcome": "applied", "files": {"a.py": "x = 1\ny = 4\n"}})
    missing = {**edit, "old": "z = 2\n"}
    write_case(tmp_path, "miss", missing, {"outcome": "applied", "files": {"a.py": "z"}})
    write_case(tmp_path, "shell", {"tool": "shell", "command": "ls"}, {"outcome": "refused"})
    record = tmp_path / "out.json"

    result = run_eval(str(tmp_path), "--json", str(record))

    assert result.returncode == 1  # a corrupt result fails the run
    lines = result.stdout.splitlines()
    assert lines[-1] == "1 passed, 2 failed, 1 skipped"
    assert any(line.startswith("bad: corrupt (applied)") for line in lines)
    assert any(line.startswith("miss: missed (refused not_found)") for line in lines)
    table_row = next(line for line in lines if line.startswith("exact "))
    assert table_row.split() == ["exact", "1", "1", "1", "1"]
    records = {r["id"]: r for r in json.loads(record.read_text(encoding="utf-8"))}
    assert records["ok"] == {
        "id": "ok",
        "outcome": "applied",
        "reason": "",
        "message": "Edited a.py: replaced 1 occurrence.\n"
        "--- a.py\n+++ a.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n",
        "files": {"a.py": "x = 1\ny = 3\n"},
        "verdict": "correct",
    }
    assert records["bad"]["verdict"] == "corrupt"
    assert records["miss"]["outcome"] == "refused"
    assert records["miss"]["reason"] == "not_found"
    assert records["shell"]["verdict"] == "skipped"


def test_clean_corpus_exits_zero(tmp_path: Path):
    edit = {"tool": "edit", "path": "a.py", "old": "y = 2\n", "new": "y = 3\n"}
    write_case(tmp_path, "ok", edit, {"outcome": "applied", "files": {"a.py": "x = 1\ny = 3\n"}})
    result = run_eval(str(tmp_path))
    assert result.returncode == 0
    assert result.stdout.splitlines()[-1] == "1 passed, 0 failed"


def test_not_a_directory(tmp_path: Path):
    result = run_eval(str(tmp_path / "nope"))
    assert result.returncode == 2
    assert "is not a directory" in result.stderr
