"""Score the engine on an edit corpus: ``python -m editing.disk.eval DIR [--json FILE]``.

Prints a line for every case that is not correct (id, verdict, outcome,
reason and a short diff), a table per category, and last ``N passed, M
failed`` (failed = missed + corrupt). Exits 1 when any result is corrupt
(or, with ``--strict``, missed).
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from .corpus import Case, CaseResult, expected_workspace, load_cases, run, verdict, workspace_after

VERDICTS = ("correct", "missed", "corrupt", "skipped")
_DIFF_LINES = 12


DESCRIPTION = "Score the edit engine on a corpus of edit cases (one JSON file each)."
EPILOG = "Exits 1 when any result is corrupt (with --strict, also when any is missed)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", type=Path, help="folder of case files (*.json)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every outcome here")
    parser.add_argument("--strict", action="store_true", help="also fail on missed cases")


def command(args: argparse.Namespace) -> int:
    if not args.directory.is_dir():
        print(f"error: {args.directory} is not a directory", file=sys.stderr)
        return 2
    return evaluate(args.directory, json_path=args.json, strict=args.strict)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m editing.disk.eval", description=DESCRIPTION, epilog=EPILOG
    )
    add_arguments(parser)
    return command(parser.parse_args(argv))


def evaluate(directory: Path, *, json_path: Path | None = None, strict: bool = False) -> int:
    cases = load_cases(directory)
    records = []
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for case in cases:
        outcome = run(case)
        result = verdict(case, outcome)
        table[case.category][result] += 1
        records.append(_record(case, outcome, result))
        if result not in ("correct", "skipped"):
            print(_describe(case, outcome, result))
    print(_table(table))
    totals: Counter[str] = sum(table.values(), Counter())
    failed = totals["missed"] + totals["corrupt"]
    line = f"{totals['correct']} passed, {failed} failed"
    if totals["skipped"]:
        line += f", {totals['skipped']} skipped"
    if json_path:
        json_path.write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n", "utf-8")
    print(line)
    return 1 if totals["corrupt"] or (strict and totals["missed"]) else 0


def _record(case: Case, outcome: CaseResult, result: str) -> dict[str, object]:
    return {
        "id": case.id,
        "outcome": outcome.outcome,
        "reason": outcome.reason,
        "message": outcome.message,
        "files": outcome.files,
        "verdict": result,
    }


def _describe(case: Case, outcome: CaseResult, result: str) -> str:
    head = f"{case.id}: {result} ({outcome.outcome}"
    head += f" {outcome.reason})" if outcome.reason else ")"
    if result == "missed":
        first_line = outcome.message.splitlines()[0] if outcome.message else ""
        return f"{head}\n    {first_line}"
    if case.expect["outcome"] != "applied":
        return f"{head}, expected refusal ({case.expect.get('reason', '')})"
    got, want = workspace_after(case, outcome), expected_workspace(case)
    lines: list[str] = []
    for path in sorted(set(got) | set(want)):
        if got.get(path) != want.get(path):
            lines += difflib.unified_diff(
                (want.get(path) or "").splitlines(keepends=True),
                (got.get(path) or "").splitlines(keepends=True),
                f"expected/{path}",
                f"engine/{path}",
                n=1,
            )
    shown = [f"    {line.rstrip(chr(10))!r}" for line in lines[:_DIFF_LINES]]
    return "\n".join([head, *shown])


def _table(table: dict[str, Counter[str]]) -> str:
    width = max([len("category"), *map(len, table)])
    rows = [f"{'category':<{width}}  " + "  ".join(f"{v:>7}" for v in VERDICTS)]
    for category in sorted(table):
        counts = table[category]
        rows.append(f"{category:<{width}}  " + "  ".join(f"{counts[v]:>7}" for v in VERDICTS))
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
