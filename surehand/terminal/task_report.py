"""What ``surehand eval-tasks`` prints and records for each task."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from agent.config.settings import Settings
from agent.staging.proposal import Ending


@dataclass(frozen=True)
class Record:
    """How one task went; written as is by ``--json``."""

    task: str
    passed: bool
    steps: int
    prompt_tokens: int
    completion_tokens: int
    tokens: int
    seconds: float  # wall time: copy, run and verify
    ending: str
    message: str  # the run's last word: the finish summary, or why it stopped
    changed: list[str]
    calls: int
    failed_calls: int
    verify_exit: int | None  # None: the verify command timed out
    verify_output: str  # its last OUTPUT_TAIL characters
    trace: str | None


def progress_line(record: Record) -> str:
    verdict = "PASS" if record.passed else "FAIL"
    line = (
        f"{verdict} {record.task}: {record.ending} in {record.steps} steps, "
        f"{record.tokens} tokens, {record.seconds:.1f} s"
    )
    if record.passed:
        return line
    if record.ending != Ending.FINISHED:
        why = record.message.splitlines()[0].rstrip(".") if record.message else record.ending
        line += f"; {why}"
    last = next((s for s in reversed(record.verify_output.splitlines()) if s.strip()), "")
    exit_code = "timeout" if record.verify_exit is None else record.verify_exit
    return f"{line}; verify exit {exit_code}: {last}"


def print_table(records: list[Record], total: int) -> None:
    width = max([len("task"), *(len(r.task) for r in records)])
    print()
    print(f"{'task':<{width}}  pass  steps  tokens  seconds  ending")
    for r in records:
        mark = "yes" if r.passed else "no"
        print(
            f"{r.task:<{width}}  {mark:<4}  {r.steps:>5}  {r.tokens:>6}  {r.seconds:>7.1f}  "
            f"{r.ending}"
        )
    passed = sum(r.passed for r in records)
    print(f"passed {passed} of {total} ({passed / total:.0%})")


def write_json(
    path: Path, records: list[Record], total: int, settings: Settings, *, scripted: bool
) -> None:
    data = {
        "model": settings.model,
        "base_url": "" if scripted else settings.base_url,
        "scripted": scripted,
        "passed": sum(r.passed for r in records),
        "total": total,
        "tasks": [asdict(r) for r in records],
    }
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
