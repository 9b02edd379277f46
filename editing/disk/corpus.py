"""Edit-corpus cases (one JSON file each) run through the engine and scored.

The format is the shared corpus's ``FORMAT.md``: a workspace before the
edit, one request as a model sends it, and the expected outcome. A case is
*correct* when the engine does what was expected, *missed* when it refused
a request whose intent was clear, and *corrupt* when it applied something
other than the expected files (or anything at all where a refusal was
expected).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..edit import Edit, EditResult, apply_edit, apply_edits
from ..errors import EditError
from ..patch import apply_patch
from ..write import WriteResult, check_write

SUPPORTED_TOOLS = ("edit", "multi_edit", "write", "patch")


@dataclass(frozen=True)
class Case:
    id: str
    category: str
    note: str
    files: dict[str, str]
    request: dict[str, Any]
    expect: dict[str, Any]

    @classmethod
    def load(cls, path: Path) -> Case:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            id=data["id"],
            category=data.get("category", ""),
            note=data.get("note", ""),
            files=data["files"],
            request=data["request"],
            expect=data["expect"],
        )


@dataclass(frozen=True)
class CaseResult:
    """What the engine did with a case: ``files`` maps every touched path to its content."""

    outcome: str  # applied | refused | skipped
    reason: str = ""
    message: str = ""
    files: dict[str, str | None] = field(default_factory=dict)


def load_cases(directory: Path) -> list[Case]:
    return [Case.load(path) for path in sorted(directory.glob("*.json"))]


def run(case: Case) -> CaseResult:
    """Apply the case's request to its files with the engine."""
    request = case.request
    tool = request["tool"]
    if tool not in SUPPORTED_TOOLS:
        return CaseResult("skipped", message=f"tool {tool!r} is not supported yet")
    path = request.get("path", "")
    text = case.files.get(path)
    result: EditResult | WriteResult
    try:
        if tool == "patch":
            patched = apply_patch(request["patch"], case.files.get)
            return CaseResult("applied", message=patched.message, files=patched.files)
        if tool == "edit":
            result = apply_edit(
                text,
                request["old"],
                request["new"],
                replace_all=request.get("replace_all", False),
                path=path,
            )
        elif tool == "multi_edit":
            edits = [
                Edit(e["old"], e["new"], e.get("replace_all", False)) for e in request["edits"]
            ]
            result = apply_edits(text, edits, path=path)
        else:
            result = check_write(text, request["content"], path=path)
    except EditError as error:
        return CaseResult("refused", str(error.reason), error.message)
    return CaseResult("applied", message=result.message, files={path: result.text})


def verdict(case: Case, outcome: CaseResult) -> str:
    """correct | missed | corrupt | skipped."""
    if outcome.outcome == "skipped":
        return "skipped"
    expected_applied = case.expect["outcome"] == "applied"
    if outcome.outcome == "refused":
        return "missed" if expected_applied else "correct"
    if not expected_applied:
        return "corrupt"
    return "correct" if workspace_after(case, outcome) == expected_workspace(case) else "corrupt"


def workspace_after(case: Case, outcome: CaseResult) -> dict[str, str]:
    return _overlay(case.files, outcome.files)


def expected_workspace(case: Case) -> dict[str, str]:
    return _overlay(case.files, case.expect.get("files", {}))


def _overlay(files: dict[str, str], changes: dict[str, str | None]) -> dict[str, str]:
    """``files`` with ``changes`` made (None deletes a file)."""
    out = dict(files)
    for path, content in changes.items():
        if content is None:
            out.pop(path, None)
        else:
            out[path] = content
    return out
