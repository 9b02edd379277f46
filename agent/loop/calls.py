"""Running one tool call the model made, whatever it sent.

Unknown tools, arguments that are not JSON or do not fit the schema, tool
refusals and even a tool's own bug all become a result text for the model;
nothing is raised out of here. Omitted optional parameters count as null.
Every call is stopped after ``tool_timeout`` seconds, but ``run_command``,
which has its own limit (and may wait for the user's answer first).
A call repeated exactly after it failed the same way gets a hint to change
approach.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from jsonschema import Draft202012Validator

from agent import messages
from agent.conversation import ToolCall
from agent.staging.workspace import ToolError
from agent.tools.base import Tool, ToolResult
from agent.tools.context import ToolContext

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CallReply:
    text: str
    ok: bool
    malformed: bool = False  # the call itself was unusable (unknown tool, bad arguments)
    result: ToolResult | None = None
    seconds: float = 0.0
    reason: str | None = None  # why it failed, as a stable code ("ambiguous", "not_found", ...)
    path: str | None = None  # the file a refusal is about


@dataclass
class Caller:
    tools: dict[str, Tool]
    failures: Counter[tuple[str, str]] = field(default_factory=Counter)
    _validators: dict[str, Draft202012Validator] = field(default_factory=dict)

    def describe(self, call: ToolCall) -> str:
        tool = self.tools.get(call.name)
        args = _parse(call.arguments)
        if tool is None or not isinstance(args, dict):
            return f"Calling {call.name}"
        try:
            return tool.describe(args)
        except (KeyError, TypeError):
            return f"Calling {call.name}"

    async def call(
        self, call: ToolCall, ctx: ToolContext, *, cut_off: bool = False, stopped_at: int = 0
    ) -> CallReply:
        """Run ``call``; ``cut_off`` says the turn ended early (at the endpoint's token
        limit, or at the answer ceiling ``stopped_at`` when surehand stopped reading it),
        so arguments that are not JSON were cut short rather than written wrong."""
        started = time.perf_counter()
        if cut_off and isinstance(_parse(call.arguments), _NotJSON):
            if stopped_at:
                text = messages.ANSWER_STOPPED_CALL.format(name=call.name, limit=stopped_at)
            else:
                text = messages.CUT_OFF_CALL.format(name=call.name, size=len(call.arguments))
            outcome = CallReply(text, False, malformed=True)
        else:
            outcome = await self._call(call, ctx)
        key = (call.name, _normal(call.arguments))
        text = outcome.text
        if outcome.ok:
            self.failures.pop(key, None)
        else:
            self.failures[key] += 1
            if self.failures[key] > 1:
                text += messages.REPEAT_HINT
        return replace(outcome, text=text, seconds=time.perf_counter() - started)

    async def _call(self, call: ToolCall, ctx: ToolContext) -> CallReply:
        tool = self.tools.get(call.name)
        if tool is None:
            names = ", ".join(sorted(self.tools))
            return CallReply(
                messages.NO_SUCH_TOOL.format(name=call.name, names=names),
                False,
                malformed=True,
                reason="malformed",
            )
        args = _parse(call.arguments)
        if isinstance(args, dict):
            _fill_nulls(tool.spec.parameters, args)
        problem = self._check(tool, args)
        if problem:
            return CallReply(problem, False, malformed=True, reason="malformed")
        limited = not getattr(tool, "limits_its_own_time", False)
        limit = ctx.settings.tool_timeout
        try:
            result = await asyncio.wait_for(tool.run(args, ctx), limit if limited else None)
        except TimeoutError:
            return CallReply(
                messages.TOOL_TIMED_OUT.format(name=call.name, limit=limit),
                False,
                reason="timed_out",
            )
        except ToolError as error:
            return CallReply(error.message, False, reason=error.code, path=error.path)
        except Exception:  # a bug in a tool must not end the task
            log.exception("tool %s failed", call.name)
            return CallReply(
                messages.TOOL_FAILED.format(name=call.name),
                False,
                reason="internal_error",
            )
        return CallReply(result.text, True, result=result)

    def _check(self, tool: Tool, args: Any) -> str | None:
        name = tool.spec.name
        if not isinstance(args, dict):
            return messages.NOT_AN_OBJECT.format(name=name, why=_why_not_json(args))
        validator = self._validators.get(name)
        if validator is None:
            validator = self._validators[name] = Draft202012Validator(tool.spec.parameters)
        errors = sorted(validator.iter_errors(args), key=lambda e: list(e.path))
        if not errors:
            return None
        details = "; ".join(_explain(e) for e in errors[:4])
        return messages.INVALID_ARGUMENTS.format(name=name, details=details)


def _fill_nulls(schema: dict[str, Any], value: Any) -> None:
    """Give omitted optional (nullable) parameters their null, as strict mode would.

    Models outside OpenAI's strict mode often leave optional parameters out.
    """
    if isinstance(value, dict) and schema.get("type") == "object":
        for name, spec in schema.get("properties", {}).items():
            kind = spec.get("type")
            if name not in value and isinstance(kind, list) and "null" in kind:
                value[name] = None
            elif name in value:
                _fill_nulls(spec, value[name])
    elif isinstance(value, list) and schema.get("type") == "array":
        for item in value:
            _fill_nulls(schema.get("items", {}), item)


class _NotJSON:
    def __init__(self, error: str) -> None:
        self.error = error


def _parse(arguments: str) -> Any:
    if not arguments.strip():
        return {}
    try:
        return json.loads(arguments)
    except ValueError as error:
        return _NotJSON(str(error))


def _why_not_json(args: Any) -> str:
    if isinstance(args, _NotJSON):
        return f"not valid JSON: {args.error}"
    return f"got {type(args).__name__}"


def _explain(error: Any) -> str:
    where = ".".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


def _normal(arguments: str) -> str:
    parsed = _parse(arguments)
    if isinstance(parsed, _NotJSON):
        return arguments
    return json.dumps(parsed, sort_keys=True)
