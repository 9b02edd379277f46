"""What a test command's output says: how many passed and failed, and which failed.

Read from the summaries the common runners print (pytest, ``node --test``
in its spec and TAP reporters, Jest, Vitest, Mocha, ``cargo test``,
``go test``); the counts are None when no summary was recognised, and the
exit code alone then says whether the run passed. The output is the
command's kept output (its start and end when it was long), and every
runner above prints its summary and its failures' names at the end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_NAMES = 20  # failing tests' names kept; the count says how many more

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
# pytest: "=== 2 failed, 39 passed, 1 skipped in 0.52s ===", or "-q"'s "2 failed, 39 passed in 0.5s"
_PYTEST_SUMMARY = re.compile(
    r"^=*\s*((?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?)"
    r"(?:, )?)+) in [\d.]+s"
)
_PYTEST_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+?)(?: - .*)?$")
# node --test: "ℹ pass 3" (spec), "# pass 3" (TAP); failures "✖ name (1.2ms)", "not ok 2 - name"
_NODE_COUNT = re.compile(r"^(?:ℹ|#) (pass|fail) (\d+)$")
_NODE_FAILED = (re.compile(r"^\s*✖ (.+?) \([\d.]+m?s\)$"), re.compile(r"^\s*not ok \d+ - (.+)$"))
# Jest: "Tests:       1 failed, 2 passed, 3 total"; Vitest: "Tests  1 failed | 2 passed (3)"
_JEST_SUMMARY = re.compile(r"^Tests:?\s+(.*?)(?:, \d+ total| \(\d+\))$")
_JEST_FAILED = re.compile(r"^\s*● (.+)$")
_VITEST_FAILED = re.compile(r"^\s*(?:FAIL|×)\s+(.+?)(?: \d+ms)?$")
# Mocha: "  3 passing (12ms)", "  1 failing", failures "  1) suite name:"
_MOCHA_COUNT = re.compile(r"^\s*(\d+) (passing|failing)(?: \(.*\))?$")
_MOCHA_FAILED = re.compile(r"^\s*\d+\) (.+?):?$")
# cargo: "test result: FAILED. 2 passed; 1 failed; 0 ignored; ...", "test a::b ... FAILED"
_CARGO_SUMMARY = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed;")
_CARGO_FAILED = re.compile(r"^test (\S+) \.\.\. FAILED$")
# unittest: "Ran 3 tests in 0.001s", then "OK" or "FAILED (failures=1, errors=1)";
# failures "FAIL: test_mul (test_calc.MulTest.test_mul)"
_UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in [\d.]+s$")
_UNITTEST_END = re.compile(r"^(?:OK|FAILED)(?: \((.*)\))?$")
_UNITTEST_FAILED = re.compile(r"^(?:FAIL|ERROR): (\S+ \(.+\))$")
# go: "--- FAIL: TestSum (0.00s)", "--- PASS: TestSum (0.00s)" (with -v)
_GO_RESULT = re.compile(r"^\s*--- (PASS|FAIL): (\S+) \(")


@dataclass(frozen=True)
class Counts:
    """A run's tests: None when the output said nothing we could read."""

    passed: int | None = None
    failed: int | None = None
    failing: tuple[str, ...] = ()  # the failing tests' names, at most ``MAX_NAMES``

    def words(self) -> str:
        """``2 failed, 39 passed`` (empty when nothing was read)."""
        parts = []
        if self.failed:
            parts.append(f"{self.failed} failed")
        if self.passed is not None:
            parts.append(f"{self.passed} passed")
        elif self.failed is None:
            return ""
        return ", ".join(parts) or "no tests"


def read_counts(output: str) -> Counts:
    """The counts and failing names in ``output``, from the first runner whose summary it has."""
    lines = [_ANSI.sub("", line).rstrip() for line in output.splitlines()]
    for reader in (_pytest, _unittest, _node, _jest, _mocha, _cargo, _go):
        counts = reader(lines)
        if counts is not None:
            return counts
    return Counts()


def _names(lines: list[str], *patterns: re.Pattern[str]) -> tuple[str, ...]:
    found: dict[str, None] = {}
    for line in lines:
        for pattern in patterns:
            if match := pattern.match(line):
                found.setdefault(match.group(1).strip(), None)
                break
    return tuple(found)[:MAX_NAMES]


def _pytest(lines: list[str]) -> Counts | None:
    for line in reversed(lines):
        if match := _PYTEST_SUMMARY.match(line):
            numbers = {
                word.rstrip("s") if word.startswith("error") else word: int(n)
                for n, word in (part.split(" ", 1) for part in match.group(1).split(", ") if part)
            }
            failed = numbers.get("failed", 0) + numbers.get("error", 0)
            return Counts(numbers.get("passed", 0), failed, _names(lines, _PYTEST_FAILED))
    return None


def _unittest(lines: list[str]) -> Counts | None:
    ran = next((int(m.group(1)) for line in lines if (m := _UNITTEST_RAN.match(line))), None)
    end = next((m for line in reversed(lines) if (m := _UNITTEST_END.match(line))), None)
    if ran is None or end is None:
        return None
    numbers = {
        key: int(value)
        for key, _, value in (part.partition("=") for part in (end.group(1) or "").split(", "))
        if value.isdigit()
    }
    failed = numbers.get("failures", 0) + numbers.get("errors", 0)
    passed = ran - failed - numbers.get("skipped", 0) - numbers.get("expected failures", 0)
    return Counts(max(passed, 0), failed, _names(lines, _UNITTEST_FAILED) if failed else ())


def _node(lines: list[str]) -> Counts | None:
    numbers = {}
    for line in lines:
        if match := _NODE_COUNT.match(line):
            numbers[match.group(1)] = int(match.group(2))
    if "pass" not in numbers or "fail" not in numbers:
        return None
    names = _names(lines, *_NODE_FAILED) if numbers["fail"] else ()
    return Counts(numbers["pass"], numbers["fail"], names)


def _jest(lines: list[str]) -> Counts | None:
    for line in reversed(lines):
        if (match := _JEST_SUMMARY.match(line.strip())) is None:
            continue
        numbers = {
            word: int(n)
            for n, word in (
                part.strip().split(" ", 1)[:2]
                for part in re.split(r", | \| ", match.group(1))
                if part.strip() and part.strip()[0].isdigit()
            )
        }
        failed = numbers.get("failed", 0)
        names = _names(lines, _JEST_FAILED, _VITEST_FAILED) if failed else ()
        return Counts(numbers.get("passed", 0), failed, names)
    return None


def _mocha(lines: list[str]) -> Counts | None:
    numbers = {}
    for line in lines:
        if match := _MOCHA_COUNT.match(line):
            numbers[match.group(2)] = int(match.group(1))
    if "passing" not in numbers:
        return None
    failed = numbers.get("failing", 0)
    return Counts(numbers["passing"], failed, _names(lines, _MOCHA_FAILED) if failed else ())


def _cargo(lines: list[str]) -> Counts | None:
    passed = failed = 0
    seen = False
    for line in lines:
        if match := _CARGO_SUMMARY.match(line):
            seen = True
            passed += int(match.group(1))
            failed += int(match.group(2))
    return Counts(passed, failed, _names(lines, _CARGO_FAILED)) if seen else None


def _go(lines: list[str]) -> Counts | None:
    results = [m.groups() for line in lines if (m := _GO_RESULT.match(line))]
    if not results:
        return None
    failing = tuple(dict.fromkeys(name for kind, name in results if kind == "FAIL"))
    passed = sum(1 for kind, _ in results if kind == "PASS")
    return Counts(passed or None, len(failing), failing[:MAX_NAMES])
