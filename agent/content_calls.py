"""Tool calls that a model wrote into its text instead of the ``tool_calls`` field.

Small local models often answer with ``{"name": "view_file", "arguments":
{...}}`` or ``<tool_call>{...}</tool_call>`` as plain content. Such text is
taken as calls only when it is nothing but calls and every one names a
declared tool; anything else is the model's answer.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Collection
from typing import Any

from .conversation import ToolCall

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_FENCED = re.compile(r"^```(?:json|tool_call)?\s*(.*?)\s*```$", re.DOTALL)


def calls_in_content(content: str, declared: Collection[str]) -> tuple[ToolCall, ...]:
    """The tool calls ``content`` consists of, or () when it is an answer."""
    text = content.strip()
    if not text:
        return ()
    tagged = _TAGGED.findall(text)
    if tagged:
        if _TAGGED.sub("", text).strip():
            return ()
        objects = [_load(block) for block in tagged]
    else:
        fenced = _FENCED.match(text)
        loaded = _load(fenced.group(1) if fenced else text)
        objects = loaded if isinstance(loaded, list) else [loaded]
    calls = []
    for index, obj in enumerate(objects):
        call = _as_call(obj, index)
        if call is None or call.name not in declared:
            return ()
        calls.append(call)
    return tuple(calls)


def _load(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _as_call(obj: Any, index: int) -> ToolCall | None:
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):
        obj = obj["function"]
    name = obj.get("name") or obj.get("tool")
    arguments = next(
        (obj[key] for key in ("arguments", "parameters", "args", "input") if key in obj), {}
    )
    if not isinstance(name, str):
        return None
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments)
    return ToolCall(f"call_{uuid.uuid4().hex[:16]}", name, arguments)
