"""A verdict's state, words and judgement, without running anything.

The state digest decides whether a run is on exactly the proposed text: two
different sets of texts must never read as the same state (property-tested).
The words show model-chosen text (a command, a test's name) escaped.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agent.checks.suite_results import Counts
from agent.checks.verdicts import (
    On,
    Status,
    TestRun,
    Verdict,
    broken_by_leaving_out,
    checkable,
    headline,
    state_of,
)
from agent.staging.review import FileReport, FileStatus, HunkReport, HunkStatus, Review

ARGV = ("pytest", "-q")
texts = st.dictionaries(
    st.text(min_size=1, max_size=6), st.one_of(st.none(), st.text(max_size=12)), max_size=4
)


@given(texts, texts)
def test_states_are_equal_exactly_when_the_texts_are(first, second):
    assert (state_of(first) == state_of(second)) == (first == second)


def test_a_boundary_moved_between_path_and_text_is_another_state():
    assert state_of({"ab": "c"}) != state_of({"a": "bc"})
    assert state_of({"a": ""}) != state_of({"a": None})
    assert state_of({}) != state_of({"a": None})


def run(failed: int, passed: int, names: tuple[str, ...] = (), by: str = "model") -> TestRun:
    code = 1 if failed else 0
    where = "sandboxed (bubblewrap, no network)"
    return TestRun(ARGV, "s", False, code, Counts(passed, failed, names), 0.5, by, True, where)


def verdict(result: TestRun | None, on: On = On.PROPOSAL, **more) -> Verdict:
    status = Status.NOT_RUN if result is None else result.status
    return Verdict(ARGV, more.pop("status", status), on, result, **more)


def test_a_model_chosen_command_and_test_name_are_shown_escaped():
    hostile = TestRun(
        ("pytest", "\x1b[2Jx"), "s", False, 1, Counts(0, 1, ("t\u202eevil",)), 1, "model", True, "w"
    )
    line = Verdict(hostile.argv, Status.FAILED, On.PROPOSAL, hostile).line()
    assert "\x1b" not in line and "\u202e" not in line
    assert "\\x1b[2Jx" in line and "t\\u202eevil" in line


def test_words_for_each_status():
    assert verdict(run(0, 3)).short() == "3 passed"
    assert verdict(run(2, 1)).short() == "2 failed"
    stale = verdict(run(0, 3), status=Status.STALE, why="testsBeforeReview is off")
    assert stale.short() == "stale"
    assert "its last run was on an earlier state (3 passed), and testsBeforeReview is off" in (
        stale.line()
    )
    assert verdict(None, why="there is no sandbox").line() == (
        "tests `pytest -q`: not run on the proposed change: there is no sandbox."
    )
    accepted = verdict(run(1, 2, ("t",), "surehand"), On.ACCEPTED, rejected=2, hunks=5)
    assert "on what you accepted (2 of 5 hunks rejected)" in accepted.line()
    assert "run by surehand" in accepted.line()
    assert headline([verdict(run(0, 3)), verdict(None)]) == "tests: 3 passed; not run"
    assert headline([]) == ""


def test_a_run_that_could_not_run_its_tests_is_an_error_and_not_checked_again():
    cannot = TestRun(ARGV, "s", False, 1, Counts(), 0.1, "surehand", True, "w", "No module")
    assert cannot.status is Status.ERROR
    assert cannot.result() == "ended with exit code 1 and no test summary: No module"
    timed_out = TestRun(ARGV, "s", False, None, Counts(), 300, "surehand", True, "w")
    assert timed_out.status is Status.ERROR and timed_out.result() == "timed out after 300 s"
    missing = TestRun(ARGV, "s", False, 127, Counts(), 0, "surehand", True, "w", "not found")
    assert missing.result() == "could not start: not found"
    assert checkable([verdict(cannot), verdict(None), verdict(run(1, 1))]) == [ARGV]


def test_leaving_out_breaks_the_suite_only_where_the_whole_proposal_passed():
    whole_green = [verdict(run(0, 3))]
    whole_red = [verdict(run(1, 2, ("a",)))]
    red_again = [verdict(run(1, 2, ("a",)), On.ACCEPTED)]
    other_red = [verdict(run(1, 2, ("b",)), On.ACCEPTED)]
    assert broken_by_leaving_out(whole_green, red_again)
    assert not broken_by_leaving_out(whole_red, red_again), "it failed the same way before"
    assert broken_by_leaving_out(whole_red, other_red), "another test fails now"
    assert not broken_by_leaving_out(whole_green, [verdict(run(0, 3), On.ACCEPTED)])


def test_a_review_counts_what_it_left_out():
    edit = FileReport(
        "a.py",
        "edit",
        FileStatus.PARTLY,
        (
            HunkReport("x", 1, HunkStatus.ACCEPTED),
            HunkReport("y", 5, HunkStatus.REJECTED),
            HunkReport("z", 9, HunkStatus.CONFLICT),
        ),
    )
    created = FileReport(
        "b.py",
        "create",
        FileStatus.APPLIED,
        (HunkReport("new", 1, HunkStatus.ACCEPTED),),
        None,
        True,
    )
    deleted = FileReport("c.py", "delete", FileStatus.UNCHANGED, (), None, False)
    assert Review.of([edit, created, deleted]).left_out() == (3, 5)
