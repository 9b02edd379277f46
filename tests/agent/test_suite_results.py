"""Reading test runners' summaries, and finding a project's test commands.

pytest, unittest and ``node --test`` (both reporters) are run for real on
small suites in temporary folders; the runners this machine does not have
(Jest, Vitest, Mocha, cargo, go) are read from their documented summary
lines.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from shutil import which

import pytest

from agent.checks.suite_results import MAX_NAMES, Counts, read_counts
from agent.loop.project_tests import found_in, is_test_command, project_commands

PY_SUITE = (
    "import unittest\n\n\nclass T(unittest.TestCase):\n"
    "    def test_a(self):\n        self.assertEqual(1, 2)\n\n"
    "    def test_b(self):\n        pass\n\n"
    "    def test_c(self):\n        raise ValueError\n"
)
JS_SUITE = (
    "const test = require('node:test');\nconst assert = require('node:assert');\n"
    "test('sums', () => assert.strictEqual(1, 2));\ntest('ok one', () => {});\n"
)


def output(argv: list[str], cwd: Path) -> str:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False, timeout=60)
    return done.stdout + done.stderr


def test_pytest_counts_failures_and_errors_and_names_them(tmp_path: Path):
    (tmp_path / "test_x.py").write_text(PY_SUITE)
    counts = read_counts(
        output([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], tmp_path)
    )
    assert counts == Counts(1, 2, ("test_x.py::T::test_a", "test_x.py::T::test_c"))


def test_unittest_counts_and_names(tmp_path: Path):
    (tmp_path / "test_x.py").write_text(PY_SUITE)
    counts = read_counts(output([sys.executable, "-m", "unittest"], tmp_path))
    assert (counts.passed, counts.failed) == (1, 2)
    assert set(counts.failing) == {"test_a (test_x.T.test_a)", "test_c (test_x.T.test_c)"}
    assert read_counts("....\n----------\nRan 4 tests in 0.001s\n\nOK\n") == Counts(4, 0)


@pytest.mark.skipif(not which("node"), reason="node is not installed")
@pytest.mark.parametrize("reporter", ["tap", "spec"])
def test_node_test_in_both_reporters(tmp_path: Path, reporter: str):
    (tmp_path / "a.test.js").write_text(JS_SUITE)
    counts = read_counts(output(["node", "--test", f"--test-reporter={reporter}"], tmp_path))
    assert counts == Counts(1, 1, ("sums",))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # Jest
            "  ● math › adds\n\n    expect(received).toBe(expected)\n\n"
            "Tests:       1 failed, 2 passed, 3 total\nTime:        0.5 s\n",
            Counts(2, 1, ("math › adds",)),
        ),
        (  # Vitest
            " FAIL  src/sum.test.ts > sums\nAssertionError: expected 1 to be 2\n\n"
            " Test Files  1 failed (1)\n      Tests  1 failed | 4 passed (5)\n",
            Counts(4, 1, ("src/sum.test.ts > sums",)),
        ),
        (  # Mocha
            "  2 passing (12ms)\n  1 failing\n\n  1) math\n       adds:\n     Error: no\n",
            Counts(2, 1, ("math",)),
        ),
        (  # cargo test, two test binaries
            "test a::ok ... ok\ntest a::bad ... FAILED\n\n"
            "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n"
            "test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n",
            Counts(4, 1, ("a::bad",)),
        ),
        (  # go test -v
            "=== RUN   TestSum\n--- FAIL: TestSum (0.00s)\n=== RUN   TestOk\n"
            "--- PASS: TestOk (0.00s)\nFAIL\nFAIL\texample.com/m\t0.002s\n",
            Counts(1, 1, ("TestSum",)),
        ),
        ("make: *** [test] Error 2\n", Counts()),
    ],
    ids=["jest", "vitest", "mocha", "cargo", "go", "unknown"],
)
def test_other_runners_summaries(text: str, expected: Counts):
    assert read_counts(text) == expected


def test_names_are_bounded_and_colours_ignored():
    lines = [f"FAILED t.py::test_{i} - boom" for i in range(50)]
    summary = "\x1b[31m===== 50 failed in 0.10s =====\x1b[0m"
    counts = read_counts("\n".join([*lines, summary]))
    assert counts.failed == 50 and len(counts.failing) == MAX_NAMES
    assert counts.words() == "50 failed, 0 passed"


def test_test_commands_are_told_from_other_commands():
    assert is_test_command(["pytest", "-q", "tests/x.py"])
    assert is_test_command(["python3", "-m", "unittest"])
    assert is_test_command(["npm", "test"]) and is_test_command(["go", "test", "./..."])
    assert not is_test_command(["cat", "pytest"]) and not is_test_command(["npm", "install"])
    assert not is_test_command([])


def test_the_layout_names_the_commands(tmp_path: Path):
    assert found_in(tmp_path) == []
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_a.py").write_text("import unittest\n")
    assert found_in(tmp_path) == [("python3", "-m", "unittest")]
    (tmp_path / "tests/test_b.py").write_text("import pytest\n")
    assert found_in(tmp_path) == [("python3", "-m", "pytest", "-q")]
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"test": "node --test"}}))
    (tmp_path / "go.mod").write_text("module m\n")
    (tmp_path / "Makefile").write_text("all:\n\ttrue\ntest:\n\t./run\n")
    assert found_in(tmp_path) == [
        ("python3", "-m", "pytest", "-q"),
        ("npm", "test"),
        ("go", "test", "./..."),
        ("make", "test"),
    ]


def test_npm_inits_placeholder_is_no_test_command(tmp_path: Path):
    script = 'echo "Error: no test specified" && exit 1'
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"test": script}}))
    assert found_in(tmp_path) == []
    (tmp_path / "package.json").write_text("{not json")
    assert found_in(tmp_path) == []


def test_configured_then_run_then_found(tmp_path: Path):
    (tmp_path / "test_a.py").write_text("import pytest\n")
    ran = [("cat", "x"), ("pytest", "-q"), ("pytest", "-q"), ("npm", "test")]
    assert project_commands(["make check"], ran, tmp_path) == [("make", "check")]
    assert project_commands([], ran, tmp_path) == [("pytest", "-q"), ("npm", "test")]
    assert project_commands([], [("cat", "x")], tmp_path) == [("python3", "-m", "pytest", "-q")]
