"""Benchmark of the edit engine on large generated files, against ``str.find``.

What it measures
    The full ``editing.apply_edit`` call (locate, plan, apply, report) for one
    edit of a 5-line method near the end of a generated Python-like file of
    1k, 10k and 100k lines (the end of the file is the worst case for the
    scans). One case per rung of the tolerance ladder, plus a refusal:

    - ``exact``: old is the file's text;
    - ``trailing_ws``: two trailing blanks on every line of old and new;
    - ``indentation``: old and new quoted 4 spaces deeper than the file;
    - ``punctuation``: the file has straight double quotes, old and new curly;
    - ``escapes``: old and new have ``\\"`` for every ``"``;
    - ``not_found``: old differs from the file by a real token, so the engine
      refuses and builds its closest-region hint.

    The baseline, timed in the same run, is ``str.find`` of the block's exact
    file text in the same file text; each row shows engine median / baseline.

    Then the patch format, on the same file:

    - ``patch_10_chunks``: the full ``editing.patch.apply_patch`` call (parse,
      locate and apply every chunk, diff) for one ``*** Update File`` of 10
      chunks spread evenly through the file (one every ~lines/10 lines), each
      under an ``@@ def render_<n>(...)`` anchor with 3 context lines, one
      ``-`` and one ``+`` line (the method's unique ``total_<n>`` line);
    - ``patch_parse``: ``editing.patch.parse_patch`` alone on the same text.

    Their baseline is 10 ``str.find`` calls, each from the start of the file,
    for the 10 chunks' old blocks (context and ``-`` lines) as file text.

How
    Each generated unit (a class with two methods and a helper function) has
    its own identifiers, so the edited block occurs once. Every case runs once
    as a warm-up whose result is checked: an applied case must produce exactly
    the file with the block replaced by the new text as the file would have
    it, at the expected ladder level; ``not_found`` must raise with reason
    ``not_found`` and name the block's lines in its hint. The patch must
    give one modified file equal to the file with its 10 old blocks replaced,
    at level ``EXACT``, and parse into one update of 10 chunks. A wrong result is
    reported and the script exits 1 (timing a wrong answer means nothing).
    Then ``--repeat`` calls are timed one by one with ``time.perf_counter_ns``,
    with the garbage collector off as ``timeit`` does, and the median is shown.
    Timings are printed, never asserted. The closing ``PATCH`` line sets the
    patch's median against ten times the ``exact`` edit's median.

Run: ``.venv/bin/python tests/bench/edit_bench.py [--sizes 1000,10000] [--repeat N]``
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from editing import EditError, Level, apply_edit
from editing.patch import UpdateFile, apply_patch, parse_patch
from tests.bench import harness

DEFAULT_SIZES = (1_000, 10_000, 100_000)
DEFAULT_REPEAT = 51
MIN_SIZE = 250  # lines: room for the header and ten whole units (one per patch chunk)
HEADLINE_CASE = "indentation"
INDENT = "    "
PATCH_CHUNKS = 10
PATCH_PATH = "gen.py"


# -- the generated file -----------------------------------------------------


def _unit(n: int) -> list[str]:
    """One class with two methods and a helper function, all named after ``n``."""
    return [
        f"class Widget{n}:",
        f'    """Holds the state of widget {n}."""',
        "",
        f'    def __init__(self, name: str = "widget-{n}") -> None:',
        "        self.name = name",
        f"        self.count_{n} = {n % 97}",
        "",
        f"    def render_{n}(self, value: int) -> str:",
        f'        """Render widget {n} with a "quoted" label."""',
        f"        total_{n} = value * {n % 7 + 2} + self.count_{n}",
        f'        label = f"item-{n}-{{total_{n}}}"',
        "        return label.upper()",
        "",
        "",
        f"def helper_{n}(items: list[str]) -> dict[str, int]:",
        f"    # Count the items seen by helper {n}.",
        "    counts: dict[str, int] = {}",
        "    for item in items:",
        "        counts[item] = counts.get(item, 0) + 1",
        "    return counts",
        "",
        "",
    ]


_HEADER = [
    '"""Generated module for the edit benchmark."""',
    "",
    "from __future__ import annotations",
    "",
    "import os",
    "",
    "",
]
_UNIT_LINES = len(_unit(0))


def _target_unit(lines: int) -> int:
    """The unit whose method is edited: the second to last whole one, so code follows it."""
    return max(0, (lines - len(_HEADER)) // _UNIT_LINES - 2)


def make_file(lines: int) -> str:
    """A Python-like module of exactly ``lines`` lines (the last unit may be cut short)."""
    body = list(_HEADER)
    n = 0
    while len(body) < lines:
        body.extend(_unit(n))
        n += 1
    return "\n".join(body[:lines]) + "\n"


def method_lines(n: int) -> list[str]:
    """The 5 lines of ``render_<n>`` as the file has them."""
    unit = _unit(n)
    start = unit.index(f"    def render_{n}(self, value: int) -> str:")
    return unit[start : start + 5]


def edited_lines(n: int) -> list[str]:
    """The same method after the edit: two of its lines change, one of them quoted."""
    lines = method_lines(n)
    lines[2] = lines[2] + " + 1"
    lines[3] = lines[3].replace('f"item-', 'f"entry-')
    return lines


# -- the drift a model adds to what it quotes --------------------------------


def _trailing(lines: list[str]) -> list[str]:
    return [line + "  " for line in lines]


def _deeper(lines: list[str]) -> list[str]:
    return [INDENT + line if line.strip() else line for line in lines]


def _curly(lines: list[str]) -> list[str]:
    """Smart quotes as a prettifier makes them: opening after a blank or ``f``."""
    out = []
    for line in lines:
        chars: list[str] = []
        for char in line:
            before = chars[-1] if chars else " "
            if char != '"':
                chars.append(char)
            else:
                chars.append("\u201c" if before in " \t(=[{f\u201c" else "\u201d")
        out.append("".join(chars))
    return out


def _escaped(lines: list[str]) -> list[str]:
    return [line.replace('"', '\\"') for line in lines]


def _identity(lines: list[str]) -> list[str]:
    return lines


@dataclass(frozen=True)
class Case:
    name: str
    drift: Callable[[list[str]], list[str]]
    level: Level | None  # None: the engine must refuse with not_found


CASES = (
    Case("exact", _identity, Level.EXACT),
    Case("trailing_ws", _trailing, Level.TRAILING_WHITESPACE),
    Case("indentation", _deeper, Level.INDENTATION),
    Case("punctuation", _curly, Level.PUNCTUATION),
    Case("escapes", _escaped, Level.ESCAPES),
    Case("not_found", _identity, None),
)


# -- one size ------------------------------------------------------------------


@dataclass(frozen=True)
class Fixture:
    """A generated file, the block to edit, and the file as it must be after the edit."""

    lines: int
    text: str
    unit: int
    block: str
    block_line: int
    expected: str


def replace_once(text: str, block: str, new: str) -> tuple[int, str]:
    """Where ``block`` starts in ``text``, and ``text`` with it replaced by ``new``."""
    at = text.find(block)
    if at < 0 or text.find(block, at + 1) >= 0:
        first = block.splitlines()[0]
        raise SystemExit(f"generator bug: the block at {first!r} is not there exactly once")
    return at, text[:at] + new + text[at + len(block) :]


def make_fixture(lines: int) -> Fixture:
    text = make_file(lines)
    unit = _target_unit(lines)
    block = "\n".join(method_lines(unit))
    at, expected = replace_once(text, block, "\n".join(edited_lines(unit)))
    return Fixture(lines, text, unit, block, text.count("\n", 0, at) + 1, expected)


def request(fixture: Fixture, case: Case) -> tuple[str, str]:
    """The old and new text a model would send for ``case``."""
    old = method_lines(fixture.unit)
    if case.level is None:
        old[2] = old[2].replace(" * ", " ** ")  # a real token the file does not have
    return "\n".join(case.drift(old)), "\n".join(case.drift(edited_lines(fixture.unit)))


def check(fixture: Fixture, case: Case, old: str, new: str) -> tuple[str, str | None]:
    """Run the case once: ``(level shown, error or None)``."""
    try:
        result = apply_edit(fixture.text, old, new, path="gen.py")
    except EditError as error:
        if case.level is not None:
            return "-", f"refused ({error.reason}): {error.message.splitlines()[0]}"
        if error.reason != "not_found":
            return "-", f"expected not_found, got {error.reason}"
        last = fixture.block_line + 4
        if f"lines {fixture.block_line}-{last}" not in error.message:
            return "-", f"the hint does not point at lines {fixture.block_line}-{last}"
        return "(not_found)", None
    shown = result.level.name
    if case.level is None:
        return shown, "applied, but old is not in the file"
    if result.level != case.level:
        return shown, f"matched at {result.level.name}, expected {case.level.name}"
    if result.text != fixture.expected:
        return shown, "the new file text is not the expected one"
    return shown, None


def _apply(text: str, old: str, new: str) -> object:
    """``apply_edit``, its refusal returned: ``not_found`` is timed with its hint."""
    try:
        return apply_edit(text, old, new, path="gen.py")
    except EditError as error:
        return error


@dataclass(frozen=True)
class Row:
    lines: int
    case: str
    level: str
    engine_ns: float | None
    find_ns: float
    error: str | None


def bench_size(lines: int, repeat: int) -> list[Row]:
    fixture = make_fixture(lines)
    text, block = fixture.text, fixture.block
    find_ns = harness.median_ns(lambda: text.find(block), repeat)
    rows = []
    for case in CASES:
        old, new = request(fixture, case)
        level, error = check(fixture, case, old, new)
        engine_ns = None if error else harness.median_ns(partial(_apply, text, old, new), repeat)
        rows.append(Row(fixture.lines, case.name, level, engine_ns, find_ns, error))
    rows.extend(bench_patch(fixture.lines, text, repeat))
    return rows


# -- the patch case ------------------------------------------------------------


def patch_units(lines: int) -> list[int]:
    """The units the patch edits: ``PATCH_CHUNKS`` whole ones, evenly spread."""
    whole = (lines - len(_HEADER)) // _UNIT_LINES
    offset = whole // (2 * PATCH_CHUNKS)  # the middle of each tenth, not its start
    return [k * whole // PATCH_CHUNKS + offset for k in range(PATCH_CHUNKS)]


def chunk_lines(n: int) -> tuple[str, list[str], list[str]]:
    """The anchor, old lines and new lines of the chunk in ``render_<n>``.

    Old is the method's body as the file has it; new changes only its
    ``total_<n>`` line, which no other unit has.
    """
    anchor, *old = method_lines(n)
    new = list(old)
    new[1] = old[1] + " + 1"
    return anchor.strip(), old, new


def make_patch(units: list[int]) -> str:
    """One ``*** Update File`` of ``gen.py`` with a chunk per unit, in file order."""
    out = ["*** Begin Patch", f"*** Update File: {PATCH_PATH}"]
    for n in units:
        anchor, old, new = chunk_lines(n)
        out.append(f"@@ {anchor}")
        out.append(f" {old[0]}")
        out.append(f"-{old[1]}")
        out.append(f"+{new[1]}")
        out.extend(f" {line}" for line in old[2:])
    out.append("*** End Patch")
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class PatchFixture:
    """A patch on a generated file, the chunks' old blocks, and the file after it."""

    lines: int
    text: str
    patch: str
    blocks: tuple[str, ...]
    expected: str


def make_patch_fixture(lines: int, text: str) -> PatchFixture:
    units = patch_units(lines)
    expected = text
    blocks = []
    for n in units:
        _, old, new = chunk_lines(n)
        block = "\n".join(old)
        _, expected = replace_once(expected, block, "\n".join(new))
        blocks.append(block)
    return PatchFixture(lines, text, make_patch(units), tuple(blocks), expected)


def _reader(fixture: PatchFixture) -> Callable[[str], str | None]:
    """The workspace the patch sees: ``gen.py`` alone."""
    return {PATCH_PATH: fixture.text}.get


def check_patch(fixture: PatchFixture) -> tuple[str, str | None]:
    """Apply the patch once: ``(level shown, error or None)``."""
    try:
        result = apply_patch(fixture.patch, _reader(fixture))
    except EditError as error:
        return "-", f"refused ({error.reason}): {error.message.splitlines()[0]}"
    shown = result.level.name
    if [(c.kind, c.path) for c in result.changes] != [("M", PATCH_PATH)]:
        return shown, f"expected one modified {PATCH_PATH}, got {result.summary}"
    if result.level != Level.EXACT:
        return shown, f"matched at {shown}, expected EXACT"
    if result.changes[0].after != fixture.expected:
        return shown, "the patched file text is not the expected one"
    return shown, None


def check_parse(fixture: PatchFixture) -> str | None:
    """Parse the patch once: the error, or None when it is one update of 10 chunks."""
    try:
        patch = parse_patch(fixture.patch)
    except EditError as error:
        return f"refused ({error.reason}): {error.message.splitlines()[0]}"
    ops = patch.ops
    if len(ops) != 1 or not isinstance(ops[0], UpdateFile) or ops[0].path != PATCH_PATH:
        return f"expected one update of {PATCH_PATH}, got {ops}"
    if len(ops[0].chunks) != PATCH_CHUNKS:
        return f"expected {PATCH_CHUNKS} chunks, got {len(ops[0].chunks)}"
    return None


def bench_patch(lines: int, text: str, repeat: int) -> list[Row]:
    fixture = make_patch_fixture(lines, text)
    patch, read, blocks = fixture.patch, _reader(fixture), fixture.blocks
    find_ns = harness.median_ns(lambda: [text.find(block) for block in blocks], repeat)
    level, error = check_patch(fixture)
    apply_ns = None if error else harness.median_ns(lambda: apply_patch(patch, read), repeat)
    parse_error = check_parse(fixture)
    parse_ns = None if parse_error else harness.median_ns(lambda: parse_patch(patch), repeat)
    return [
        Row(lines, f"patch_{PATCH_CHUNKS}_chunks", level, apply_ns, find_ns, error),
        Row(lines, "patch_parse", "(parse only)", parse_ns, find_ns, parse_error),
    ]


# -- output --------------------------------------------------------------------

_COLUMNS = ("lines", "case", "level matched", "engine ms", "str.find ms", "ratio")
_WIDTHS = (8, 16, 20, 10, 12, 9)


def _format(cells: tuple[str, ...]) -> str:
    return "  ".join(
        cell.ljust(width) if i in (1, 2) else cell.rjust(width)
        for i, (cell, width) in enumerate(zip(cells, _WIDTHS, strict=True))
    )


def _ms(ns: float) -> str:
    return f"{ns / 1e6:.3f}"


def format_row(row: Row) -> str:
    if row.engine_ns is None:
        engine, ratio = "WRONG", "-"
    else:
        engine, ratio = _ms(row.engine_ns), f"{row.engine_ns / row.find_ns:.1f}x"
    return _format((f"{row.lines:,}", row.case, row.level, engine, _ms(row.find_ns), ratio))


def headline(rows: list[Row]) -> str:
    wanted = [r for r in rows if r.case == HEADLINE_CASE and r.engine_ns is not None]
    if not wanted:
        return f"HEADLINE: no {HEADLINE_CASE} figure (its result was wrong)"
    row = max(wanted, key=lambda r: r.lines)
    assert row.engine_ns is not None
    return (
        f"HEADLINE: {row.lines:,}-line {HEADLINE_CASE} drift: median "
        f"{_ms(row.engine_ns)} ms, {row.engine_ns / row.find_ns:.1f}x str.find "
        f"({_ms(row.find_ns)} ms)"
    )


def patch_note(rows: list[Row]) -> str:
    """The largest patch figure against ten times the exact edit's median, same size."""
    by_case = {(r.lines, r.case): r.engine_ns for r in rows if r.engine_ns is not None}
    sizes = [
        lines
        for (lines, case) in by_case
        if case == f"patch_{PATCH_CHUNKS}_chunks" and (lines, "exact") in by_case
    ]
    if not sizes:
        return "PATCH: no figure (a result was wrong)"
    lines = max(sizes)
    patch_ns, exact_ns = by_case[lines, f"patch_{PATCH_CHUNKS}_chunks"], by_case[lines, "exact"]
    parse_ns = by_case.get((lines, "patch_parse"))
    parse = f"; parse_patch alone {_ms(parse_ns)} ms" if parse_ns is not None else ""
    return (
        f"PATCH: {lines:,}-line {PATCH_CHUNKS}-chunk apply_patch: median {_ms(patch_ns)} ms, "
        f"{patch_ns / (PATCH_CHUNKS * exact_ns):.1f}x of {PATCH_CHUNKS} x the exact row "
        f"({_ms(PATCH_CHUNKS * exact_ns)} ms){parse}"
    )


def _sizes(value: str) -> list[int]:
    sizes = [int(size) for size in value.split(",")]
    if any(size < MIN_SIZE for size in sizes):
        raise argparse.ArgumentTypeError(f"every size must be at least {MIN_SIZE} lines")
    return sizes


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = harness.parser(__doc__, DEFAULT_REPEAT, "timed runs per case, after one warm-up")
    parser.add_argument(
        "--sizes",
        type=_sizes,
        default=list(DEFAULT_SIZES),
        help="comma-separated file sizes in lines (default: 1000,10000,100000)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def body() -> None:
        print(_format(_COLUMNS))
        rows: list[Row] = []
        for size in args.sizes:
            size_rows = bench_size(size, args.repeat)
            for row in size_rows:
                print(format_row(row), flush=True)
            rows.extend(size_rows)
        print(headline(rows))
        print(patch_note(rows))
        wrong = [f"{row.lines:,} lines, {row.case}: {row.error}" for row in rows if row.error]
        harness.expect(not wrong, "\n".join(wrong))

    return harness.run(body, f"; median of {args.repeat} runs after one warm-up")


if __name__ == "__main__":
    sys.exit(main())
