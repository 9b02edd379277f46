"""The engine's core is pure: no module of ``editing`` outside ``editing/disk`` does I/O.

Two checks. Every core module's source is read with ``ast``: it may not
import a file-system, process or console module, nor ``editing.disk``, nor
call ``open``, ``print`` or ``input``. And a fresh interpreter that imports
every core module loads none of the process and file modules that a bare
interpreter has not already loaded.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import editing

CORE_ROOT = Path(editing.__file__).parent
EDGE = "disk"  # editing/disk: the one part of the engine that touches the file system

FORBIDDEN_MODULES = frozenset(
    {
        "asyncio",
        "concurrent",
        "fcntl",
        "filecmp",
        "fileinput",
        "glob",
        "http",
        "io",
        "linecache",
        "mmap",
        "multiprocessing",
        "os",
        "pathlib",
        "pty",
        "select",
        "selectors",
        "shutil",
        "signal",
        "socket",
        "sqlite3",
        "subprocess",
        "sys",
        "tarfile",
        "tempfile",
        "threading",
        "urllib",
        "zipfile",
    }
)
FORBIDDEN_SUBMODULES = frozenset({"importlib.resources", "importlib.metadata"})
FORBIDDEN_CALLS = frozenset({"open", "print", "input", "__import__"})
# Loaded by nothing a bare interpreter loads at start, so a fresh import can check them.
NOT_LOADED_AT_START = ("shutil", "subprocess", "tempfile", "glob", "socket", "asyncio", "signal")


def core_modules() -> list[tuple[str, Path]]:
    """Every module of the pure core: its dotted name and its file."""
    found = []
    for path in sorted(CORE_ROOT.rglob("*.py")):
        relative = path.relative_to(CORE_ROOT)
        if relative.parts[0] == EDGE:
            continue
        parts = ["editing", *relative.with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found.append((".".join(parts), path))
    return found


def package_of(module: str, path: Path) -> str:
    """The package relative imports in ``module`` start from."""
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def impurities(source: str, package: str) -> list[str]:
    """What in ``source`` (a module of ``package``) does I/O or reaches the file-system edge."""
    problems = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in FORBIDDEN_CALLS:
                problems.append(f"line {node.lineno}: calls {node.func.id}()")
            continue
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue  # names only of imports
        for name in names:
            top = name.split(".")[0]
            if top in FORBIDDEN_MODULES or name in FORBIDDEN_SUBMODULES:
                problems.append(f"line {node.lineno}: imports {name}")
            elif name == f"editing.{EDGE}" or name.startswith(f"editing.{EDGE}."):
                problems.append(f"line {node.lineno}: imports {name}, the file-system edge")
    return sorted(set(problems))


def test_the_core_is_most_of_the_engine():
    names = {name for name, _ in core_modules()}
    assert {"editing", "editing.edit", "editing.matcher", "editing.patch.apply"} <= names
    assert not any(name.startswith("editing.disk") for name in names)


@pytest.mark.parametrize(("module", "path"), core_modules(), ids=[m for m, _ in core_modules()])
def test_core_module_imports_no_io(module: str, path: Path):
    assert impurities(path.read_text("utf-8"), package_of(module, path)) == []


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import os\n", "line 1: imports os"),
        ("import os.path as p\n", "line 1: imports os.path"),
        ("from pathlib import Path\n", "line 1: imports pathlib"),
        ("def f():\n    import subprocess\n", "line 2: imports subprocess"),
        ("from importlib import resources\n", "line 1: imports importlib.resources"),
        ("text = open('x').read()\n", "line 1: calls open()"),
        ("print('hi')\n", "line 1: calls print()"),
        ("from .disk import workdir\n", "line 1: imports editing.disk, the file-system edge"),
        ("from . import disk\n", "line 1: imports editing.disk, the file-system edge"),
        ("from ..disk.paths import why_refused\n", "line 1: imports editing.disk.paths"),
    ],
)
def test_the_check_finds_io(source: str, found: str):
    package = "editing.patch" if source.startswith("from ..") else "editing"
    assert any(problem.startswith(found) for problem in impurities(source, package))


def test_pure_imports_pass_the_check():
    source = "import re\nfrom .matches import Level\nfrom rapidfuzz import fuzz, process\n"
    assert impurities(source, "editing") == []


def test_a_fresh_interpreter_importing_the_core_loads_no_process_or_file_module():
    names = [name for name, _ in core_modules()]
    script = (
        "import importlib, json, sys\n"
        "before = set(sys.modules)\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        f"watched = {NOT_LOADED_AT_START!r}\n"
        "print(json.dumps({\n"
        "    'at_start': sorted(n for n in watched if n in before),\n"
        "    'loaded': sorted(n for n in set(sys.modules) - before\n"
        "                     if n.split('.')[0] in watched or n.startswith('editing.disk')),\n"
        "}))\n"
    )
    run = subprocess.run(
        [sys.executable, "-I", "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=CORE_ROOT.parent,
    )
    report = json.loads(run.stdout)
    assert report == {"at_start": [], "loaded": []}
