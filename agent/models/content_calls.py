"""What a model's text holds besides its answer: thinking, and tool calls written as text.

Reasoning models on servers without a reasoning parser write their thinking
into the text as ``<think>...</think>`` (or, when the opening tag is part of
the prompt template, only the closing one). Models on servers without a
tool parser write calls as ``<tool_call>{...}</tool_call>`` (Hermes, Qwen),
anywhere in the answer, or answer with nothing but ``{"name": ...,
"arguments": {...}}``, bare or fenced.

``read_content`` splits a whole text; ``ContentStream`` does the same for a
text still streaming, so thinking can be shown as progress and a call is
not shown as prose. Text is taken as calls only when every call in it names
a declared tool; otherwise it is the model's answer.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, ClassVar

from agent.conversation import ToolCall

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
CALL_OPEN, CALL_CLOSE = "<tool_call>", "</tool_call>"

_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL)
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_FENCED = re.compile(r"^```(?:json|tool_call)?\s*(.*?)\s*```$", re.DOTALL)


@dataclass(frozen=True)
class ContentParts:
    """A model's text taken apart: its thinking, its answer, the calls it wrote."""

    thinking: str
    text: str
    calls: tuple[ToolCall, ...] = ()


def read_content(content: str, declared: Collection[str]) -> ContentParts:
    """``content`` as thinking, answer text and the declared-tool calls written in it."""
    thinking, text = split_thinking(content)
    calls, rest = _tagged_calls(text, declared)
    if calls:
        return ContentParts(thinking, rest, calls)
    whole = _whole_text_calls(text, declared)
    return ContentParts(thinking, "" if whole else text, whole)


def calls_in_content(content: str, declared: Collection[str]) -> tuple[ToolCall, ...]:
    """The tool calls written in ``content``, or () when it is an answer."""
    return read_content(content, declared).calls


def split_thinking(content: str) -> tuple[str, str]:
    """(thinking, the rest): ``<think>`` blocks, and text before a ``</think>`` never opened."""
    head, closed, tail = content.partition(THINK_CLOSE)
    thoughts: list[str] = []
    if closed and THINK_OPEN not in head:
        thoughts.append(head)
        content = tail
    for block in _THINK.findall(content):
        thoughts.append(block.removeprefix(THINK_OPEN).removesuffix(THINK_CLOSE))
    rest = _THINK.sub("", content)
    return "\n".join(t.strip() for t in thoughts if t.strip()), rest.strip()


def _tagged_calls(text: str, declared: Collection[str]) -> tuple[tuple[ToolCall, ...], str]:
    blocks = _TAGGED.findall(text)
    if not blocks:
        return (), text
    calls = [_as_call(_load(block)) for block in blocks]
    if not all(call is not None and call.name in declared for call in calls):
        return (), text
    rest = _TAGGED.sub("", text)
    return tuple(c for c in calls if c is not None), re.sub(r"\n{3,}", "\n\n", rest).strip()


def _whole_text_calls(text: str, declared: Collection[str]) -> tuple[ToolCall, ...]:
    if not text:
        return ()
    fenced = _FENCED.match(text)
    loaded = _load(fenced.group(1) if fenced else text)
    objects = loaded if isinstance(loaded, list) else [loaded]
    calls = []
    for obj in objects:
        call = _as_call(obj)
        if call is None or call.name not in declared:
            return ()
        calls.append(call)
    return tuple(calls)


def _load(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _as_call(obj: Any) -> ToolCall | None:
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):
        obj = obj["function"]
    name = obj.get("name") or obj.get("tool")
    arguments: Any = next(
        (obj[key] for key in ("arguments", "parameters", "args", "input") if key in obj), {}
    )
    if not isinstance(name, str):
        return None
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments)
    return ToolCall(f"call_{uuid.uuid4().hex[:16]}", name, arguments)


class ContentStream:
    """Splits text as it streams into ("text" | "thinking" | "call", piece) parts.

    A tag split over two pieces is held back until it is whole. Text before a
    ``</think>`` that was never opened cannot be known as thinking until the
    tag comes; it is shown as text.
    """

    _ENDS: ClassVar[dict[str, str]] = {"text": "", "thinking": THINK_CLOSE, "call": CALL_CLOSE}

    def __init__(self) -> None:
        self.state = "text"
        self._held = ""

    def feed(self, piece: str) -> list[tuple[str, str]]:
        parts: list[tuple[str, str]] = []
        buffer = self._held + piece
        self._held = ""
        while buffer:
            tags = self._tags()
            found = [(buffer.find(tag), tag) for tag in tags if tag in buffer]
            if found:
                at, tag = min(found)
                self._emit(parts, buffer[:at])
                self.state = _next_state(self.state, tag)
                buffer = buffer[at + len(tag) :]
                continue
            keep = _partial_tag_suffix(buffer, tags)
            self._emit(parts, buffer[: len(buffer) - keep])
            self._held = buffer[len(buffer) - keep :]
            break
        return parts

    def finish(self) -> list[tuple[str, str]]:
        parts: list[tuple[str, str]] = []
        self._emit(parts, self._held)
        self._held = ""
        return parts

    def _tags(self) -> tuple[str, ...]:
        if self.state == "text":
            return (THINK_OPEN, THINK_CLOSE, CALL_OPEN)
        return (self._ENDS[self.state],)

    def _emit(self, parts: list[tuple[str, str]], text: str) -> None:
        if text:
            parts.append((self.state, text))


def _next_state(state: str, tag: str) -> str:
    return {THINK_OPEN: "thinking", CALL_OPEN: "call"}.get(tag, "text")


def _partial_tag_suffix(text: str, tags: tuple[str, ...]) -> int:
    """How many characters at the end of ``text`` could be the start of one of ``tags``."""
    longest = 0
    for tag in tags:
        for size in range(min(len(tag) - 1, len(text)), 0, -1):
            if text.endswith(tag[:size]):
                longest = max(longest, size)
                break
    return longest
