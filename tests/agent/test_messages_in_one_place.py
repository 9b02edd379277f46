"""The texts the model reads from the tools live in ``agent/tools/messages.py``.

Two checks over the syntax of every other module of ``agent/tools``:

- *to the model*: the text of a ``ToolResult`` and the message of a
  ``ToolError`` (of any subclass), raised or returned, hold no string literal
  with a letter in it, however short;
- *a sentence*: no other literal reads like one (three words or more, with
  a space), outside docstrings, a tool's ``describe`` and a ``summary=`` (the
  user's progress words), log calls and exceptions for developers, unless
  ``ALLOWED`` says why the model never reads the sentences of a function.

Short fragments outside a result or a refusal (a mark such as `` (new)``)
pass the checks; they are in the messages module all the same.

Both checks also run on samples of inline texts, to show that they catch one.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

import pytest

import agent.tools
from agent.staging.workspace import FileExists, ToolError
from agent.tools import messages
from agent.tools.base import ToolResult

TOOLS = Path(agent.tools.__file__).parent
MODULES = sorted(path.name for path in TOOLS.glob("*.py") if path.name != "messages.py")
SENTENCE_WORDS = 3

# (module, function) -> why the sentences in it are not for the model
ALLOWED = {
    ("context.py", "question"): "the question put to the user before a command runs",
    ("run_command.py", "why_ask"): "why the user is asked: a part of that question",
    ("staging.py", "_edited"): "the progress summary of an edit, for the user",
}


@dataclass(frozen=True)
class Inline:
    module: str
    line: int
    function: str  # the innermost ``def`` around it, "" at module level
    text: str  # the literal, an f-string's fields shown as {}
    kind: str  # "to the model" or "a sentence"


def inline_texts(module: str, source: str, namespace: dict[str, Any]) -> list[Inline]:
    """The literals in ``source`` that the checks refuse; names resolve in ``namespace``."""
    found: list[Inline] = []

    def visit(node: ast.AST, function: str, exempt: bool, to_model: bool) -> None:
        if isinstance(node, ast.Expr) and _is_str(node.value):
            return  # a docstring (of a module, class, function or attribute)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            function = node.name
        exempt = exempt or _exempts(node, namespace)
        texts = _text_arguments(node, namespace)
        children: list[ast.AST] = list(ast.iter_child_nodes(node))
        if _is_str(node) or isinstance(node, ast.JoinedStr):
            text = _template(node)
            if to_model and re.search("[A-Za-z]", text):
                found.append(Inline(module, node.lineno, function, text, "to the model"))
            elif not exempt and " " in text and _words(text) >= SENTENCE_WORDS:
                found.append(Inline(module, node.lineno, function, text, "a sentence"))
            fields = node.values if isinstance(node, ast.JoinedStr) else []
            children = [field.value for field in fields if isinstance(field, ast.FormattedValue)]
        for child in children:
            visit(child, function, exempt, to_model or any(child is t for t in texts))

    visit(ast.parse(source), "", False, False)
    return found


def _exempts(node: ast.AST, namespace: dict[str, Any]) -> bool:
    """Whether the literals under ``node`` are the user's or a developer's, not the model's."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return node.name == "describe"
    if isinstance(node, ast.keyword):
        return node.arg == "summary"
    if isinstance(node, ast.Raise):
        return _for_developers(node.exc, namespace)
    if isinstance(node, ast.Call):
        return _is_log_call(_resolve(node.func, namespace))
    return False


def _text_arguments(node: ast.AST, namespace: dict[str, Any]) -> list[ast.AST]:
    """The arguments of a ``ToolResult`` or ``ToolError`` call that the model reads."""
    if not (isinstance(node, ast.Call) and _to_model(_resolve(node.func, namespace))):
        return []
    return [*node.args[:1], *(k for k in node.keywords if k.arg in _TEXT)]


_TEXT = {"text", "message"}


def _is_str(node: ast.AST) -> TypeGuard[ast.Constant]:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _template(node: ast.AST) -> str:
    if isinstance(node, ast.Constant):
        return str(node.value)
    assert isinstance(node, ast.JoinedStr)
    return "".join(_template(v) if _is_str(v) else "{}" for v in node.values)


def _words(text: str) -> int:
    return len(re.findall("[A-Za-z]+", text))


def _resolve(node: ast.AST, namespace: dict[str, Any]) -> object:
    """What a name or ``a.b.c`` stands for in the module, None if unknown."""
    if isinstance(node, ast.Name):
        return namespace.get(node.id, getattr(builtins, node.id, None))
    if isinstance(node, ast.Attribute):
        return getattr(_resolve(node.value, namespace), node.attr, None)
    return None


def _to_model(callee: object) -> bool:
    return inspect.isclass(callee) and issubclass(callee, ToolResult | ToolError)


def _is_log_call(callee: object) -> bool:
    owner = getattr(callee, "__self__", None)
    return isinstance(owner, logging.Logger) or getattr(callee, "__module__", "") == "logging"


def _for_developers(exc: ast.expr | None, namespace: dict[str, Any]) -> bool:
    """A raised exception the model never sees: any but a ``ToolError``."""
    if not isinstance(exc, ast.Call):
        return False
    callee = _resolve(exc.func, namespace)
    return inspect.isclass(callee) and issubclass(callee, Exception) and not _to_model(callee)


def _module_texts(name: str) -> list[Inline]:
    module = importlib.import_module(f"agent.tools.{name.removesuffix('.py')}")
    return inline_texts(name, (TOOLS / name).read_text("utf-8"), vars(module))


def test_the_tools_write_no_text_for_the_model_inline() -> None:
    found = [f for name in MODULES for f in _module_texts(name)]
    refused = [
        f for f in found if f.kind == "to the model" or (f.module, f.function) not in ALLOWED
    ]
    assert refused == [], "move these texts to agent/tools/messages.py"


def test_every_allowed_place_still_holds_a_sentence() -> None:
    found = {
        (f.module, f.function) for n in MODULES for f in _module_texts(n) if f.kind == "a sentence"
    }
    assert set(ALLOWED) <= found


def test_every_tool_message_is_used() -> None:
    names = {n for n in vars(messages) if n.isupper()}
    used = {
        node.attr
        for name in MODULES
        for node in ast.walk(ast.parse((TOOLS / name).read_text("utf-8")))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "messages"
    }
    assert sorted(names - used) == []


_NAMESPACE: dict[str, Any] = {
    "ToolResult": ToolResult,
    "ToolError": ToolError,
    "FileExists": FileExists,
    "messages": messages,
    "log": logging.getLogger("sample"),
    "logging": logging,
}

CAUGHT = {
    "a short result": 'def run():\n    return ToolResult("Nothing to list.")\n',
    "a result with a field": 'def run(p):\n    return ToolResult(f"{p} is locked", summary="x")\n',
    "a result by keyword": 'def run():\n    return ToolResult(text="Done.")\n',
    "a refusal raised": 'def run():\n    raise FileExists("It exists.")\n',
    "a refusal returned": 'def refuse():\n    return ToolError(f"Cannot stage {1}.")\n',
    "a refusal's text put together": 'raise ToolError("Edit " + "refused")\n',
    "a note in a helper": 'def text(n):\n    return f"[output cut after {n} lines]"\n',
    "a sentence in a constant": 'NOTE = "Run the tests again before you finish."\n',
    "a sentence inside a field": "f\"{a or 'the file is not there now'}\"\n",
}

PASSED = {
    "a docstring": 'def run():\n    """Return the text the model reads, made in messages."""\n',
    "a module docstring": '"""The tool, which returns a sentence to the model."""\n',
    "a template from messages": (
        "def run(p):\n    return ToolResult(messages.CREATED.format(path=p, lines=1))\n"
    ),
    "a joined output": 'def run(lines):\n    return ToolResult("\\n".join(lines))\n',
    "progress words": (
        "class T:\n    def describe(self, args):\n"
        '        return f"Searching for the text {args} in all of it"\n'
    ),
    "a summary": 'def run():\n    return ToolResult("", summary="Read it all from the top")\n',
    "a log line": 'log.debug("ripgrep took %s seconds on this tree", 1)\n',
    "a module-level log line": 'logging.warning("the walk of this tree was slow")\n',
    "an exception for developers": 'raise ValueError("the overlay was closed before the run")\n',
    "a reason code": 'raise ToolError(messages.FINISHED, reason="stale_view")\n',
    "a command's options": 'ARGV = ["git", "-c", "core.quotePath=false", "ls-files"]\n',
}


@pytest.mark.parametrize("source", CAUGHT.values(), ids=CAUGHT.keys())
def test_the_check_catches_an_inline_text(source: str) -> None:
    assert inline_texts("sample.py", source, _NAMESPACE) != []


@pytest.mark.parametrize("source", PASSED.values(), ids=PASSED.keys())
def test_the_check_passes_what_is_not_for_the_model(source: str) -> None:
    assert inline_texts("sample.py", source, _NAMESPACE) == []
