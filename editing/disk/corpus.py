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

from ..edit import EditResult, apply_edit, apply_edits
from ..edit_request import Edit
from ..errors import EditError
from ..patch import apply_patch, parse_patch
from ..write import WriteResult, check_write
from .paths import OutsideRoot, clean

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
    """Apply the case's request to its files with the engine, as the tools would.

    Every path the request names is read with the tools' rule (``paths.clean``:
    ``./src/a.py`` is ``src/a.py``); one the tools refuse is refused here too.
    """
    request = case.request
    tool = request["tool"]
    if tool not in SUPPORTED_TOOLS:
        return CaseResult("skipped", message=f"tool {tool!r} is not supported yet")
    files = {_key(path): text for path, text in case.files.items()}
    result: EditResult | WriteResult
    try:
        if tool == "patch":
            return _run_patch(request["patch"], files)
        path = _tool_path(request.get("path", ""))
        text = files.get(path)
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
    except _PathRefused as refused:
        return CaseResult("refused", "invalid_request", refused.message)
    return CaseResult("applied", message=result.message, files={path: result.text})


class _PathRefused(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _tool_path(path: str) -> str:
    """``path`` as a tool that changes it reads it, or ``_PathRefused``."""
    try:
        return clean(path, to_change=True)
    except OutsideRoot as error:
        raise _PathRefused(f"Refused: {path!r} {error.why}. Nothing was changed.") from None


def _key(path: str) -> str:
    """A case's own path, read with the same rule (left as it is when the rule refuses it)."""
    try:
        return clean(path)
    except OutsideRoot:
        return path


def _run_patch(text: str, files: dict[str, str]) -> CaseResult:
    """The patch tool: every path the patch names read with the tools' rule."""
    patch = parse_patch(text)
    paths = {path: _tool_path(path) for path in patch.paths}
    patched = apply_patch(patch, lambda path: files.get(paths.get(path, path)))
    changed = {paths.get(path, path): content for path, content in patched.files.items()}
    return CaseResult("applied", message=patched.message, files=changed)


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
    expected = {_key(path): text for path, text in case.expect.get("files", {}).items()}
    return _overlay(case.files, expected)


def _overlay(files: dict[str, str], changes: dict[str, str | None]) -> dict[str, str]:
    """``files`` with ``changes`` made (None deletes a file)."""
    out = {_key(path): text for path, text in files.items()}
    for path, content in changes.items():
        if content is None:
            out.pop(path, None)
        else:
            out[path] = content
    return out
