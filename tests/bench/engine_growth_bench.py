"""How the edit engine's cost grows with its input, beside a linear baseline.

What it measures
    Five paths that once grew far worse than linearly, each at three sizes ten
    times apart, beside a baseline timed in the same run on the same input:

    - ``patch_repeating_context``: ``editing.patch.apply_patch`` of one
      ``*** Update File`` with one chunk per function (each under its
      ``@@ def render_<n>`` anchor), where every function has the same body,
      so each chunk's context occurs all over the file. Baseline: the least
      a patch applier does, in Python: the patch's lines read into chunks,
      each chunk's old lines found from where the previous one ended (the
      file's lines walked once, each compared with the chunk's first line),
      its new lines spliced in, the lines joined. (Before, the baseline was
      the scan alone, with the chunks given: no parse, no new text.)
    - ``long_old``: ``editing.apply_edit`` of one edit whose old is a block of
      that many lines (code-like, with repeated lines), new the same block
      with every 50th line changed, in a file ten times as long. Baseline:
      ``str.find`` of old.
    - ``replace_all_inside_new``: ``replace_all`` of ``compute(a)`` by
      ``compute(a) or 0`` in a file where half the lines already have the new
      text (old occurs inside new: those must be left alone). Baseline: one
      ``re.sub`` of ``new|old`` by new, which replaces old and leaves the
      copies of new as they are. (Before, the baseline was ``str.replace``,
      which also changes the copies: a wrong result, not the same work.)
    - ``ambiguous_exact``: the refusal of an edit whose old is one line of a
      file of that many identical lines. Baseline: ``str.count`` of old.
    - ``ambiguous_indentation``: the same, with old two of those lines quoted
      at another depth (found at the indentation level). Baseline:
      ``str.count`` of the line's text.

    Each row: the engine's median, the baseline's median, their ratio, and the
    growth per 10x input (time at this size / time at the size before; 10 is
    linear).

How
    Every case runs once as a warm-up whose result is checked (the exact new
    text, or the refusal with the right number of places); a wrong result is
    reported and the script exits 1. The engine and its baseline are then
    timed in turn, run for run, and the three sizes of a path in rounds (one
    run of each size per round: 9 runs at the smallest size, 4 and 3 at the
    larger ones), so that a busy stretch of the machine slows all of them,
    not one; each one's median is printed. Timings are printed, never
    asserted.

Run: ``.venv/bin/python tests/bench/engine_growth_bench.py [--repeat N] [--scale F]``
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from editing import EditError, EditResult, Level, apply_edit
from editing.patch import PatchResult, apply_patch
from tests.bench import harness

DEFAULT_REPEAT = 9


@dataclass(frozen=True)
class Row:
    """One size of one path: what to time, its baseline, and the check of its result."""

    engine: Callable[[], object]
    baseline: Callable[[], object]
    check: Callable[[], None]


# -- patch with repeating context ---------------------------------------------


def _render(n: int) -> list[str]:
    return [
        f"def render_{n}(self):",
        "    total = 0",
        "    for item in self.items:",
        "        total += item.price",
        "    return total",
        "",
    ]


def patch_input(chunks: int, path: str = "gen.py") -> tuple[str, str, str]:
    """The file, a patch of ``path`` with one chunk per function, and the patched file."""
    text = "".join(line + "\n" for n in range(chunks) for line in _render(n))
    parts = ["*** Begin Patch", f"*** Update File: {path}"]
    for n in range(chunks):
        parts += [
            f"@@ def render_{n}(self):",
            "     total = 0",
            "-    for item in self.items:",
            "+    for item in self.items():",
            "         total += item.price",
        ]
    parts.append("*** End Patch")
    return text, "\n".join(parts) + "\n", text.replace("self.items:", "self.items():")


def patch_row(chunks: int) -> Row:
    text, patch, expected = patch_input(chunks)

    def engine() -> PatchResult:
        return apply_patch(patch, lambda path: text if path == "gen.py" else None)

    def baseline() -> object:
        # The least a patch applier must do: read the patch's lines into
        # chunks, find each chunk's old lines after the previous one (the
        # file's lines walked once), splice in its new lines, join.
        chunk_olds: list[list[str]] = []
        chunk_news: list[list[str]] = []
        for line in patch.split("\n"):
            if line.startswith("@@"):
                chunk_olds.append([])
                chunk_news.append([])
            elif chunk_olds and line[:1] in (" ", "-", "+"):
                if line[0] != "+":
                    chunk_olds[-1].append(line[1:])
                if line[0] != "-":
                    chunk_news[-1].append(line[1:])
        lines = text.split("\n")
        out: list[str] = []
        at = 0
        for old, new in zip(chunk_olds, chunk_news, strict=True):
            start = at
            while lines[at] != old[0] or lines[at : at + len(old)] != old:
                at += 1
            out += lines[start:at]
            out += new
            at += len(old)
        out += lines[at:]
        return "\n".join(out)

    def check() -> None:
        result = engine()
        harness.expect(
            result.files == {"gen.py": expected} and result.level == Level.EXACT,
            f"patch of {chunks} chunks: wrong text or level {result.level}",
        )
        harness.expect(baseline() == expected, "baseline splice: wrong text")

    return Row(engine, baseline, check)


# -- a long old ------------------------------------------------------------------


def _block_line(i: int) -> str:
    shapes = (
        f"    value_{i} = compute({i})",
        "    if value is None:",
        "        return None",
        "",
        "    pass",
        f"    log('step {i % 13}')",
        "    return value",
        "    # ---",
    )
    return shapes[i % len(shapes)]


def long_old_input(lines: int, functions: int) -> tuple[str, str, str, str]:
    """A file of ``functions`` short functions, then one of ``lines`` lines; old
    (that block), new (every 50th line changed) and the edited file."""
    block = [_block_line(i) for i in range(lines)]
    changed = [
        line + "  # checked" if i % 50 == 25 and line.strip() else line
        for i, line in enumerate(block)
    ]
    if changed == block:
        changed[0] += "  # checked"
    head = "".join(f"def other_{i}():\n    return {i}\n\n" for i in range(functions))
    head += "def long_function():\n"
    tail = "\n\ndef after():\n    return 1\n"
    old = "\n".join(block) + "\n"
    new = "\n".join(changed) + "\n"
    return head + old + tail, old, new, head + new + tail


def long_old_row(lines: int) -> Row:
    text, old, new, expected = long_old_input(lines, 3 * lines)

    def engine() -> EditResult:
        return apply_edit(text, old, new, path="long.py")

    def baseline() -> object:
        return text.find(old)

    def check() -> None:
        result = engine()
        harness.expect(result.text == expected, f"long old of {lines} lines: wrong text")
        harness.expect(result.level == Level.EXACT, f"long old: level {result.level}")

    return Row(engine, baseline, check)


# -- replace_all where old occurs inside new -------------------------------------


def replace_all_row(lines: int) -> Row:
    old, new = "compute(a)", "compute(a) or 0"
    file_lines = [f"    value_{i} = {new if i % 2 else old}" for i in range(lines)]
    text = "\n".join(file_lines) + "\n"
    expected = text.replace(f"= {old}\n", f"= {new}\n")

    def engine() -> EditResult:
        return apply_edit(text, old, new, replace_all=True, path="many.py")

    # str.replace would also change the copies of new: the least honest work
    # is one pass that replaces old and leaves new alone where it already is.
    either = re.compile(f"{re.escape(new)}|{re.escape(old)}")

    def baseline() -> object:
        return either.sub(lambda _found: new, text)

    def check() -> None:
        result = engine()
        harness.expect(result.text == expected, f"replace_all on {lines} lines: wrong text")
        harness.expect(
            result.replaced == (lines + 1) // 2, f"replace_all: replaced {result.replaced}"
        )
        harness.expect(baseline() == expected, "baseline replace: wrong text")

    return Row(engine, baseline, check)


# -- ambiguous refusals ------------------------------------------------------------

_PLACES = re.compile(r"old matches (\d+) places")


def _refusal(text: str, old: str) -> EditError:
    try:
        apply_edit(text, old, old + "  # more", path="same.py")
    except EditError as error:
        return error
    raise harness.WrongResult("an ambiguous edit was applied")


def ambiguous_row(lines: int, *, indented: bool) -> Row:
    line = "value = 1"
    if indented:
        text = f"    {line}\n" * lines
        old = f"  {line}\n  {line}\n"
        places = lines - 1
    else:
        text = f"{line}\n" * lines
        old = f"{line}\n"
        places = lines

    def engine() -> EditError:
        return _refusal(text, old)

    def baseline() -> object:
        return text.count(line)

    def check() -> None:
        error = engine()
        found = _PLACES.search(error.message)
        harness.expect(
            error.reason == "ambiguous" and found is not None and int(found[1]) == places,
            f"ambiguous on {lines} lines: {error.message[:200]}",
        )
        if indented:
            harness.expect("ignoring indentation" in error.message, "not the indentation level")
        harness.expect(baseline() == lines, "baseline count")

    return Row(engine, baseline, check)


# -- the table -------------------------------------------------------------------------

PATHS: dict[str, tuple[Callable[[int], Row], tuple[int, int, int], str]] = {
    "patch_repeating_context": (patch_row, (50, 500, 5_000), "chunks"),
    # From a thousand lines (the case was 2,000): below that the
    # engine's fixed cost per edit, not its growth, is what the ratio shows.
    "long_old": (long_old_row, (1_000, 10_000, 100_000), "old lines"),
    "replace_all_inside_new": (replace_all_row, (160, 1_600, 16_000), "file lines"),
    "ambiguous_exact": (
        lambda n: ambiguous_row(n, indented=False),
        (10_000, 100_000, 1_000_000),
        "lines",
    ),
    "ambiguous_indentation": (
        lambda n: ambiguous_row(n, indented=True),
        (10_000, 100_000, 1_000_000),
        "lines",
    ),
}


BASELINES = {
    "patch_repeating_context": "parse the patch's lines, scan the file's lines once, splice, join",
    "long_old": "str.find of old",
    "replace_all_inside_new": "re.sub of new|old by new (str.replace would change the copies too)",
    "ambiguous_exact": "str.count of old",
    "ambiguous_indentation": "str.count of the line's text",
}


def _ms(ns: float) -> str:
    return f"{ns / 1e6:10.2f}"


def main() -> int:
    parser = harness.parser(__doc__ or "", DEFAULT_REPEAT, "timed runs per size", PATHS)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every size (default: 1)")
    args = parser.parse_args()

    def body() -> None:
        print(
            f"\n{'path':<25} {'size':>9} {'unit':<10} {'engine ms':>10} {'base ms':>10} "
            f"{'ratio':>8} {'growth/10x':>10}"
        )
        for name in args.sections:
            make, base_sizes, unit = PATHS[name]
            sizes = [max(1, int(base_size * args.scale)) for base_size in base_sizes]
            rows = [make(size) for size in sizes]
            for row in rows:
                row.check()
            # The larger sizes run fewer times (they are the slow ones when a
            # path regresses), but never fewer than three: one run is noise.
            repeats = [max(min(3, args.repeat), args.repeat // (1 + i)) for i in range(len(rows))]
            timed = harness.rounds_median_ns([(row.engine, row.baseline) for row in rows], repeats)
            previous = None
            for size, (engine, base) in zip(sizes, timed, strict=True):
                growth = f"{engine / previous:10.1f}" if previous else f"{'':>10}"
                print(
                    f"{name:<25} {size:>9,} {unit:<10} {_ms(engine)} {_ms(base)} "
                    f"{engine / base:7.1f}x {growth}"
                )
                previous = engine
        print("\nbaselines:")
        for name in args.sections:
            print(f"  {name:<25} {BASELINES[name]}")

    return harness.run(body, f", repeat {args.repeat}")


if __name__ == "__main__":
    raise SystemExit(main())
