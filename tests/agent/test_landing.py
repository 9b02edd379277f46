"""The one landing of a proposal onto the texts as they are now, and reading back
what a text holds: cases for every kind of file change."""

from __future__ import annotations

from agent.staging.landed import decided
from agent.staging.landing import Ground, land_file
from agent.staging.proposal import ProposedChange
from agent.staging.rebase import hunks_between

BASE = "one\ntwo\nthree\nfour\nfive\n"
OURS = "ONE\ntwo\nthree\nfour\nFIVE\n"


def texts(**files: str | None):
    return lambda path: files.get(path.replace("/", "_").replace(".", "_"))


def test_an_unchanged_file_takes_the_change_as_proposed():
    change = ProposedChange("a.py", BASE, OURS, ("fix",))
    landing = land_file(change, texts(a_py=BASE))
    assert (landing.ground, landing.change) == (Ground.AS_READ, change)


def test_a_changed_file_gets_the_hunks_rebased_and_clashes_reported_with_lines():
    change = ProposedChange("a.py", BASE, OURS, ("fix",))
    theirs = "zero\none\ntwo\nthree\nfour\nfive!\n"
    landing = land_file(change, texts(a_py=theirs))
    assert landing.ground == Ground.REBASED
    assert landing.change is not None
    assert landing.change.before == theirs
    assert landing.change.after == "zero\nONE\ntwo\nthree\nfour\nfive!\n"
    (conflict,) = landing.conflicts
    assert (conflict.base_start, conflict.line, conflict.theirs) == (5, 6, "five!\n")


def test_a_new_file_that_exists_now_is_left_alone():
    change = ProposedChange("n.py", None, "new\n", ("add n",))
    assert land_file(change, texts(n_py="mine\n")).ground == Ground.MOVED_ON
    assert land_file(change, texts(n_py="new\n")).ground == Ground.ALREADY
    assert land_file(change, texts()).ground == Ground.AS_READ


def test_a_file_to_delete_that_the_user_changed_is_kept():
    change = ProposedChange("a.py", BASE, None, ("drop a",))
    landing = land_file(change, texts(a_py=BASE + "more\n"))
    assert (landing.ground, landing.change, landing.why) == (
        Ground.MOVED_ON,
        None,
        "a.py was changed since",
    )
    assert land_file(change, texts()).ground == Ground.ALREADY


def test_a_move_onto_a_path_that_exists_now_is_left_alone():
    change = ProposedChange("b.py", BASE, OURS, ("move",), source="a.py")
    assert land_file(change, texts(a_py=BASE, b_py="x\n")).why == "b.py exists now"
    assert land_file(change, texts()).why == "a.py is gone"
    moved = land_file(change, texts(a_py="zero\n" + BASE))
    assert moved.ground == Ground.REBASED and moved.change is not None
    assert moved.change.after == "zero\n" + OURS


def test_decided_reads_which_hunks_a_text_holds():
    hunks = hunks_between(BASE, OURS)
    assert len(hunks) == 2
    assert decided(BASE, hunks, OURS) == [True, True]
    assert decided(BASE, hunks, BASE) == [False, False]
    assert decided(BASE, hunks, "ONE\ntwo\nthree\nfour\nfive\n") == [True, False]
    assert decided(BASE, hunks, "one\ntwo\nTHREE\nfour\nfive\n") is None
