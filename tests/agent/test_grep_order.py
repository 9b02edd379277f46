"""Files found in any order show as if found in path order (ripgrep searches in parallel)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from agent.config.settings import Settings
from agent.staging.workspace import Overlay
from agent.tools.context import ToolContext
from agent.tools.grep import MAX_MATCHES, FileHits, Found, Grep, find_ripgrep, render
from agent.tools.list_files import path_key
from tests.agent.overlay_support import write_files

names = st.text("ab/-.", min_size=1, max_size=6).filter(
    lambda p: not p.startswith("/") and not p.endswith("/") and "//" not in p
)
files = st.dictionaries(names, st.integers(0, 60), max_size=12)


def hits(path: str, count: int) -> FileHits | None:
    numbers = tuple(range(1, count + 1))
    return FileHits(path, {n: f"line {n}" for n in numbers}, numbers) if count else None


def shown(found: Found) -> tuple[str, int, int]:
    return render(found.hits, found.matches, 0), found.matches, found.files


@given(files, st.randoms(use_true_random=False))
def test_any_order_shows_what_path_order_shows(found_files: dict[str, int], random) -> None:
    in_order, shuffled = Found(), Found()
    for path in sorted(found_files, key=path_key):
        in_order.add(hits(path, found_files[path]))
    paths = list(found_files)
    random.shuffle(paths)
    for path in paths:
        if shuffled.wants(path):
            shuffled.add(hits(path, found_files[path]))
        else:  # what ripgrep's reader does then: count only
            shuffled.add(None, found_files[path])
    assert shown(shuffled) == shown(in_order)
    kept = sum(len(h.matches) for h in shuffled.hits)
    assert kept < MAX_MATCHES + max(found_files.values(), default=0)  # no more kept than needed


def test_ripgrep_in_parallel_shows_the_first_files_in_path_order(tmp_path: Path) -> None:
    rg = find_ripgrep()
    assert rg
    tree = {f"d{n % 7}/f{n:04}.txt": "hit\n" * (1 + n % 3) for n in range(700)}
    write_files(tmp_path, tree)
    ctx = ToolContext(Overlay(tmp_path), Settings())
    call = {"pattern": "hit", "path": None, "glob": None, "ignore_case": None, "context": None}
    by_rg = asyncio.run(Grep(rg=rg).run(call, ctx))
    by_python = asyncio.run(Grep(rg=None).run(call, ctx))
    assert by_rg.text == by_python.text and by_rg.summary == by_python.summary
    assert by_rg.summary == f"{sum(1 + n % 3 for n in range(700))} matches in 700 files"


@given(st.lists(names, min_size=2, max_size=8))
def test_the_path_key_orders_paths_part_by_part(paths: list[str]) -> None:
    assert sorted(paths, key=path_key) == sorted(paths, key=lambda p: tuple(p.split("/")))
