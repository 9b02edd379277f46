"""Command output is kept in memory bounded by its cap, however much a command prints.

Real processes print tens of megabytes through ``run_process`` (the runner's own
path); how the cost grows with the size is measured by
``tests/bench/output_bench.py``, not asserted here.
"""

from __future__ import annotations

import asyncio
import tracemalloc
from pathlib import Path

from agent.config.settings import Settings
from agent.execution.runner import MAX_OUTPUT_CHARS, OutputBuffer, run_process
from tests.agent.sandboxes import PYTHON

MB = 1_000_000
FLOOD = (
    "import sys\n"
    "line = 'x' * 99 + '\\n'\n"
    "block = line * 1_000\n"
    "for _ in range({blocks}): sys.stdout.write(block)\n"
    "sys.stdout.write('the end\\n')\n"
)


def flood(tmp_path: Path, megabytes: float, max_chars: int):
    code = FLOOD.format(blocks=int(megabytes * 10))
    env = {"PATH": "/usr/bin:/bin", "PYTHONUNBUFFERED": "1"}
    return asyncio.run(run_process([PYTHON, "-c", code], tmp_path, env, 60, max_chars))


def test_a_huge_cap_from_the_settings_is_held_to_the_ceiling(tmp_path: Path):
    """outputMaxChars = 2000000000 (as an untrusted project file set it) keeps no more
    than the ceiling of what a command's output may keep."""
    result = flood(tmp_path, 30, 2_000_000_000)
    assert result.exit_code == 0
    assert len(result.output) < MAX_OUTPUT_CHARS + 100
    assert result.output.startswith("x" * 99 + "\n")
    assert result.output.endswith("x\nthe end\n")
    assert f"[... {30 * MB + 8 - MAX_OUTPUT_CHARS} characters cut ...]" in result.output


def test_output_within_the_cap_is_kept_whole(tmp_path: Path):
    result = flood(tmp_path, 0.1, 2_000_000_000)
    assert result.output == ("x" * 99 + "\n") * 1_000 + "the end\n"


def test_the_buffer_holds_no_more_than_its_cap_while_output_streams():
    """20 MB read in pipe-sized pieces by a 2 MB buffer: what it allocates stays near
    the cap (the old buffer kept a copy of the whole cap and a copy of the tail for
    every piece)."""
    cap = 2 * MB
    piece = "y" * 65_535 + "\n"
    buffer = OutputBuffer(cap)
    tracemalloc.start()
    try:
        for _ in range(20 * MB // len(piece)):
            buffer.add(piece)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < cap * 1.3
    assert buffer.text().endswith("y\n")
    assert len(buffer.text()) < cap + 100


def test_a_piece_larger_than_the_cap_is_cut_as_it_comes():
    buffer = OutputBuffer(100)
    buffer.add("a" * 50)
    buffer.add("b" * 1_000)
    buffer.add("c" * 10)
    whole = "a" * 50 + "b" * 1_000 + "c" * 10
    assert (
        buffer.text()
        == whole[:40] + f"\n[... {len(whole) - 100} characters cut ...]\n" + (whole[-60:])
    )


def test_a_cap_of_one_keeps_the_last_character():
    buffer = OutputBuffer(1)
    for _ in range(5):
        buffer.add("abc")
    assert buffer.text() == "\n[... 14 characters cut ...]\n" + "c"


def test_the_ceiling_is_far_above_the_default():
    assert 20 * Settings().output_max_chars <= MAX_OUTPUT_CHARS
