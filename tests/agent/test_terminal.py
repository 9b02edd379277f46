"""The terminal's lines, printed to a file (no terminal: no colour, no live line)."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from agent.conversation import ToolCall, Usage
from agent.events import (
    ModelCalling,
    ModelText,
    ModelThinking,
    ModelWriting,
    StepStarted,
    StepUsage,
    TaskEnded,
    ToolFinished,
    ToolStarted,
)
from agent.messages import CUT_OFF_ANSWER
from surehand.terminal.screen import Terminal
from surehand.terminal.status_line import FRAMES, StatusLine

RUN = ToolCall("c1", "run_command", '{"command": "pytest"}')


def shown(*events) -> str:
    out = io.StringIO()
    terminal = Terminal(out)
    for event in events:
        terminal.event(event)
    return out.getvalue()


def test_marks_are_honest():
    text = shown(
        ToolFinished(1, RUN, True, "pytest: 3 passed", succeeded=True),
        ToolFinished(2, RUN, True, "pytest: 1 failed", succeeded=False),
        ToolFinished(3, RUN, False, "Invalid arguments for run_command"),
    )
    assert text.splitlines() == [
        "    ✓ pytest: 3 passed",
        "    ✗ pytest: 1 failed",
        "    ✗ Invalid arguments for run_command",
    ]


def test_model_text_is_printed_by_whole_lines_and_thinking_is_not_printed():
    text = shown(
        StepStarted(1),
        ModelThinking(1, "secret plan"),
        ModelText(1, "I will "),
        ModelText(1, "look.\nThen fix"),
        ModelCalling(1, "view_file"),
        ModelWriting(1, "view_file", 20),
        ToolStarted(1, RUN, "Reading calc.py"),
    )
    assert text.splitlines() == ["  │ I will look.", "  │ Then fix", "[1] Reading calc.py"]
    assert "\x1b" not in text


def test_the_end_names_flags_and_counts_tokens_or_says_there_were_none():
    out = io.StringIO()
    terminal = Terminal(out)
    terminal.event(TaskEnded("step_limit", "Stopped after 3 steps (the step limit, maxSteps)."))
    terminal.totals(Usage(1200, 34), 3, Path("/t/trace.jsonl"))
    terminal.totals(Usage(), 1, None)
    assert out.getvalue().splitlines() == [
        "Task step_limit: Stopped after 3 steps (the step limit, --max-steps).",
        "3 steps, 1,234 tokens (1,200 prompt, 34 completion); trace /t/trace.jsonl",
        "1 step, tokens not reported by the endpoint",
    ]


def test_a_steps_tokens_are_on_its_first_lines_or_a_line_of_their_own():
    text = shown(
        StepStarted(1),
        StepUsage(1, Usage(1200, 34)),
        ToolStarted(1, RUN, "Running pytest"),
        ToolStarted(1, RUN, "Running pytest again"),
        StepStarted(2),
        StepUsage(2, Usage()),  # not reported
        ToolStarted(2, RUN, "Reading calc.py"),
        StepStarted(3),
        StepUsage(3, Usage(1500, 20)),
        ModelText(3, "Done."),
        TaskEnded("answered", "Done."),
    )
    assert text.splitlines() == [
        "[1] Running pytest  · 1,234 tokens",
        "[1] Running pytest again",
        "[2] Reading calc.py",
        "  │ Done.",
        "    step 3: 1,520 tokens",
        "Task answered.",
    ]


def test_the_answer_streamed_is_not_repeated_at_the_end():
    text = shown(
        StepStarted(1),
        ModelText(1, "add subtracts.\nIt "),
        ModelText(1, "should add."),
        TaskEnded("answered", f"{CUT_OFF_ANSWER} add subtracts.\nIt should add."),
        StepStarted(2),
        ModelText(2, "Something else."),
        TaskEnded("finished", "add now adds."),
        StepStarted(3),
        ModelText(3, "."),
        TaskEnded("finished", "Done."),
    )
    assert text.splitlines() == [
        "  │ add subtracts.",
        "  │ It should add.",
        f"Task answered: {CUT_OFF_ANSWER}",
        "  │ Something else.",
        "Task finished: add now adds.",
        "  │ .",
        "Task finished: Done.",
    ]


def test_the_unfinished_line_above_the_status_shows_its_end_escaped():
    status = StatusLine()
    status.set("writing the answer")
    status.above = "  │ " + "word " * 30 + "\x1b[2J\u202eend"
    out = io.StringIO()
    Console(file=out, width=40, color_system=None).print(status)
    above, line = out.getvalue().splitlines()
    assert above.startswith("…") and above.endswith("word \\x1b[2J\\u202eend")
    assert len(above) <= 39
    assert line[0] in FRAMES and line[1:].startswith(" writing the answer ")
