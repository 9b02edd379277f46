"""What every benchmark here shares: its arguments, its timer, and how a run ends.

A benchmark checks each result before it times it; a wrong one raises
``WrongResult`` (timing a wrong answer means nothing), which ``run`` reports
as ``WRONG RESULT`` lines and exit status 1. Timings are printed, never
asserted.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager


class WrongResult(Exception):
    """A result that is not the expected one; the message says how it differs."""


def expect(ok: bool, message: str) -> None:
    if not ok:
        raise WrongResult(message)


def median_ns(call: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``call`` over ``repeat`` runs after one warm-up, gc off as
    ``timeit`` does."""
    call()
    with _collector_off():
        return statistics.median(_ns(call) for _ in range(repeat))


def paired_median_ns(
    call: Callable[[], object], baseline: Callable[[], object], repeat: int
) -> tuple[float, float]:
    """Median wall times of ``call`` and ``baseline``, timed in turn (one of each,
    ``repeat`` times, after one warm-up of each), gc off: a machine that slows
    down for a while slows both, not only whichever ran then."""
    return rounds_median_ns([(call, baseline)], [repeat])[0]


def rounds_median_ns(
    pairs: Sequence[tuple[Callable[[], object], Callable[[], object]]], repeats: Sequence[int]
) -> list[tuple[float, float]]:
    """``paired_median_ns`` of each pair, the pairs timed in rounds: each round
    times every pair once (while it has runs left of its ``repeats``), so the
    sizes of one table see the same machine, not one quiet and one busy stretch."""
    for call, baseline in pairs:
        call()
        baseline()
    times: list[tuple[list[int], list[int]]] = [([], []) for _ in pairs]
    with _collector_off():
        for turn in range(max(repeats, default=0)):
            for (call, baseline), repeat, (first, second) in zip(
                pairs, repeats, times, strict=True
            ):
                if turn < repeat:
                    first.append(_ns(call))
                    second.append(_ns(baseline))
    return [(statistics.median(first), statistics.median(second)) for first, second in times]


def _ns(call: Callable[[], object]) -> int:
    began = time.perf_counter_ns()
    call()
    return time.perf_counter_ns() - began


@contextmanager
def _collector_off() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def positive(value: str) -> int:
    """An ``argparse`` type: an integer of at least 1."""
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be positive, not {number}")
    return number


def _names_of(known: list[str]) -> Callable[[str], list[str]]:
    """An ``argparse`` type: a comma-separated list of some of ``known``."""

    def parse(value: str) -> list[str]:
        names = [name for name in value.split(",") if name]
        unknown = sorted(set(names) - set(known))
        if unknown:
            raise argparse.ArgumentTypeError(
                f"unknown: {', '.join(unknown)} (known: {', '.join(known)})"
            )
        return names

    return parse


def parser(
    doc: str, repeat: int, what: str, sections: Iterable[str] = ()
) -> argparse.ArgumentParser:
    """A parser described by ``doc``'s first line, with ``--repeat`` (of ``what``) and,
    given ``sections``, ``--sections`` (all by default)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument(
        "--repeat", type=positive, default=repeat, help=f"{what} (default: {repeat})"
    )
    if names := list(sections):
        everything = ",".join(names)
        parser.add_argument(
            "--sections",
            type=_names_of(names),
            default=everything,
            help=f"comma-separated (default: {everything})",
        )
    return parser


def run(body: Callable[[], None], header: str = "") -> int:
    """Print the interpreter and ``header``, run ``body``, then any wrong result and the
    total time; 1 if a result was wrong."""
    began = time.perf_counter()
    print(f"Python {sys.version.split()[0]}{header}")
    status = 0
    try:
        body()
    except WrongResult as error:
        for line in str(error).splitlines():
            print(f"WRONG RESULT: {line}")
        status = 1
    print(f"\ntotal {time.perf_counter() - began:.1f} s")
    return status
