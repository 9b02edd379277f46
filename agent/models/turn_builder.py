"""One model turn assembled from what an OpenAI-compatible endpoint sent.

Servers bend the format; each bend here has a fixture in the tests:

- the answer streamed as ``chat.completion.chunk`` objects, or as one
  ``chat.completion`` although a stream was asked for;
- a tool call's pieces keyed by ``index``, where several calls may share an
  index (Ollama sends every parallel call with ``index: 0``): a piece with a
  new id, or a name for a call that already has one and complete
  arguments, starts a new call;
- arguments as a JSON string in pieces, or as a JSON object;
- reasoning in ``reasoning_content`` (DeepSeek, vLLM, llama.cpp, LM Studio)
  or ``reasoning`` (OpenRouter, Ollama, newer vLLM), or as ``<think>``
  blocks in the text: shown as progress, never part of the answer
  (``reasoning_content`` is kept to be sent back with the turn's calls,
  which DeepSeek requires in thinking mode);
- usage in a last chunk without choices, inside the last choice's chunk,
  partial (``null`` counts) or absent.

What it keeps of an answer (text, reasoning and tool-call arguments
together) is bounded by ``max_chars``: past it the builder is ``stopped``,
takes nothing more (the client stops reading), and the turn says where it
stopped (``ModelTurn.stopped_at``), so a call cut there never runs and the
model is told.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from agent import messages
from agent.config.settings import MAX_ANSWER_CHARS
from agent.conversation import ModelTurn, ToolCall, Usage
from agent.models.content_calls import ContentStream, read_content, split_thinking
from agent.models.model import Delta, OnDelta

REASONING_FIELDS = ("reasoning_content", "reasoning")
__all__ = ["MAX_ANSWER_CHARS", "TurnBuilder"]


@dataclass
class _Call:
    index: int
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.arguments)

    def complete(self) -> bool:
        try:
            json.loads(self.text)
        except ValueError:
            return False
        return True


class TurnBuilder:
    def __init__(
        self,
        declared: Collection[str],
        on_delta: OnDelta | None = None,
        max_chars: int = MAX_ANSWER_CHARS,
    ) -> None:
        self.declared = declared
        self.on_delta = on_delta or (lambda delta: None)
        self.max_chars = max_chars
        self.kept = 0  # characters kept, against max_chars
        self.stopped = False  # past max_chars: nothing more is taken
        self._text: list[str] = []
        self._echoed: list[str] = []  # reasoning_content, which DeepSeek wants back
        self._calls: list[_Call] = []
        self._stream = ContentStream()
        self._usage = Usage()
        self._finish = ""

    def chunk(self, data: Mapping[str, Any]) -> None:
        """Take one ``chat.completion.chunk``."""
        self._take_usage(data.get("usage"))
        for choice in _choices(data):
            delta = choice.get("delta") or choice.get("message") or {}
            self._take_reasoning(delta)
            content = delta.get("content")
            if isinstance(content, str) and content:
                self._take_text(content)
            for piece in delta.get("tool_calls") or ():
                if isinstance(piece, Mapping):
                    self._take_call_piece(piece)
            self._take_finish(choice)

    def completion(self, data: Mapping[str, Any]) -> None:
        """Take one whole ``chat.completion`` (the answer came unstreamed)."""
        self._take_usage(data.get("usage"))
        for choice in _choices(data):
            message = choice.get("message") or {}
            self._take_reasoning(message)
            content = message.get("content")
            if isinstance(content, str) and content:
                self._take_text(content)
            for position, piece in enumerate(message.get("tool_calls") or ()):
                if isinstance(piece, Mapping):
                    self._take_call_piece({**piece, "index": position})
            self._take_finish(choice)

    def stop(self) -> None:
        """Take nothing more: the answer is past what may be kept (or too big to read)."""
        self.stopped = True

    def turn(self) -> ModelTurn:
        for state, text in self._stream.finish():
            self._show(state, text)
        calls = tuple(
            ToolCall(call.id or f"call_{position}", call.name, call.text)
            for position, call in enumerate(self._calls)
        )
        text = "".join(self._text)
        echoed = "".join(self._echoed)
        stopped_at = self.max_chars if self.stopped else 0
        if calls:  # the server parsed the calls: the text is only the text (less thinking)
            answer = split_thinking(text)[1]
        else:
            parts = read_content(text, self.declared)
            answer, calls = parts.text, parts.calls
        if stopped_at and not calls:
            note = messages.ANSWER_STOPPED_TEXT.format(limit=stopped_at)
            answer = f"{answer}\n\n{note}" if answer else note
        return ModelTurn(answer, calls, self._usage, self._finish, echoed, stopped_at)

    # -- pieces ---------------------------------------------------------------------

    def _room(self, text: str) -> str:
        """What of ``text`` may be kept; past the ceiling the builder stops."""
        if self.stopped:
            return ""
        room = self.max_chars - self.kept
        if len(text) > room:
            text = text[:room]
            self.stop()
        self.kept += len(text)
        return text

    def _take_text(self, text: str) -> None:
        text = self._room(text)
        if not text:
            return
        self._text.append(text)
        for state, piece in self._stream.feed(text):
            self._show(state, piece)

    def _show(self, state: str, text: str) -> None:
        if state == "text":
            self.on_delta(Delta(text=text))
        elif state == "thinking":
            self.on_delta(Delta(reasoning=text))

    def _take_reasoning(self, delta: Mapping[str, Any]) -> None:
        for name in REASONING_FIELDS:
            value = delta.get(name)
            if isinstance(value, str) and value:
                value = self._room(value)
                if not value:
                    return
                if name == "reasoning_content":
                    self._echoed.append(value)
                self.on_delta(Delta(reasoning=value))
                return

    def _take_call_piece(self, piece: Mapping[str, Any]) -> None:
        if self.stopped:
            return
        function = piece.get("function") or {}
        name = _text(function.get("name"))
        call_id = _text(piece.get("id"))
        index = piece.get("index")
        if not isinstance(index, int):  # no index at all (early Ollama): a call per named piece
            continuing = self._calls and not (name or call_id)
            index = self._calls[-1].index if continuing else len(self._calls)
        call = self._current(index)
        if call is None or _starts_new_call(call, call_id, name):
            call = _Call(index)
            self._calls.append(call)
        call.id = call.id or call_id
        call.name = call.name or name
        arguments = function.get("arguments")
        if isinstance(arguments, Mapping | list):
            arguments = json.dumps(arguments)
        if isinstance(arguments, str) and arguments:
            arguments = self._room(arguments)
            call.arguments.append(arguments)
        else:
            arguments = ""
        position = self._calls.index(call)
        self.on_delta(Delta(tool_index=position, tool_name=call.name, arguments=arguments))

    def _current(self, index: int) -> _Call | None:
        return next((c for c in reversed(self._calls) if c.index == index), None)

    def _take_usage(self, usage: Any) -> None:
        if not isinstance(usage, Mapping):
            return
        prompt = usage.get("prompt_tokens")
        completion = usage.get("completion_tokens")
        self._usage = Usage(
            prompt if isinstance(prompt, int) else self._usage.prompt_tokens,
            completion if isinstance(completion, int) else self._usage.completion_tokens,
        )

    def _take_finish(self, choice: Mapping[str, Any]) -> None:
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason:
            self._finish = reason


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _starts_new_call(call: _Call, call_id: str, name: str) -> bool:
    """Whether a piece for ``call``'s index is the start of another call."""
    if call_id and call.id and call_id != call.id:
        return True
    if call_id and call.id == call_id:
        return False
    return bool(name and call.name and call.arguments and call.complete())


def _choices(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    choices = data.get("choices")
    if not isinstance(choices, list):
        return []
    return [c for c in choices if isinstance(c, Mapping) and c.get("index", 0) == 0]
