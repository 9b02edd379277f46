"""Re-basing the agent's proposal onto the buffer the user kept typing in.

Cases first, then properties:

1. User and agent changes on disjoint, non-adjacent lines of a random file:
   the result is both changes applied, with no conflicts.
2. A buffer nobody touched gives the proposal itself.
3. A proposal that changes nothing gives the buffer itself.
4. The user typing exactly the proposal gives the buffer, all hunks applied.
5. Any strings give a result; conflicts quote the texts they come from.
"""

from __future__ import annotations

from itertools import count

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

from agent.staging.line_cut import split_lines
from agent.staging.rebase import Conflict, Rebased, rebase

PROPERTY = settings(max_examples=200, deadline=None)


def text(*lines: str, eol: str = "\n") -> str:
    """``lines`` as a file, each ending in ``eol``."""
    return "".join(line + eol for line in lines)


BASE = text("one", "two", "three", "four", "five", "six", "seven")
OURS = text("one", "two", "THREE", "four", "five", "six", "seven")  # the agent edits line 3


# -- cases --------------------------------------------------------------------


def test_user_typing_above_the_hunk_shifts_it():
    theirs = text("zero", "one", "two", "three", "four", "five", "six", "seven")
    assert rebase(BASE, OURS, theirs) == Rebased(
        text("zero", "one", "two", "THREE", "four", "five", "six", "seven"), 1, ()
    )


def test_user_typing_below_the_hunk_leaves_it_in_place():
    theirs = text("one", "two", "three", "four", "five", "5½", "six", "seven")
    assert rebase(BASE, OURS, theirs) == Rebased(
        text("one", "two", "THREE", "four", "five", "5½", "six", "seven"), 1, ()
    )


def test_user_editing_the_same_line_is_a_conflict_and_the_buffer_is_kept():
    theirs = text("one", "two", "three!", "four", "five", "six", "seven")
    assert rebase(BASE, OURS, theirs) == Rebased(
        theirs, 0, (Conflict(base_start=3, base_end=3, ours="THREE\n", theirs="three!\n"),)
    )


def test_user_deleting_the_lines_around_the_hunk_does_not_conflict():
    theirs = text("one", "three", "five", "six", "seven")
    assert rebase(BASE, OURS, theirs) == Rebased(
        text("one", "THREE", "five", "six", "seven"), 1, ()
    )


def test_user_edits_touching_the_hunk_do_not_conflict():
    theirs = text("one", "TWO", "three", "FOUR", "five", "six", "seven")
    assert rebase(BASE, OURS, theirs) == Rebased(
        text("one", "TWO", "THREE", "FOUR", "five", "six", "seven"), 1, ()
    )


def test_agent_insertion_right_after_a_user_edit_lands_after_it():
    ours = text("one", "two", "2½", "three", "four", "five", "six", "seven")
    theirs = text("one", "Two", "TWO", "three", "four", "five", "six", "seven")
    assert rebase(BASE, ours, theirs) == Rebased(
        text("one", "Two", "TWO", "2½", "three", "four", "five", "six", "seven"), 1, ()
    )


def test_user_deleting_the_lines_the_hunk_changes_is_a_conflict():
    theirs = text("one", "two", "five", "six", "seven")
    assert rebase(BASE, OURS, theirs) == Rebased(
        theirs, 0, (Conflict(base_start=3, base_end=3, ours="THREE\n", theirs=""),)
    )


def test_insertions_at_the_same_point_conflict():
    ours = text("one", "two", "agent", "three", "four", "five", "six", "seven")
    theirs = text("one", "two", "user", "three", "four", "five", "six", "seven")
    assert rebase(BASE, ours, theirs) == Rebased(
        theirs, 0, (Conflict(base_start=3, base_end=2, ours="agent\n", theirs="user\n"),)
    )


def test_agent_insertion_inside_a_user_replacement_conflicts_with_all_of_it():
    ours = text("one", "two", "three", "agent", "four", "five", "six", "seven")
    theirs = text("one", "two", "3", "4", "five", "six", "seven")
    assert rebase(BASE, ours, theirs) == Rebased(
        theirs, 0, (Conflict(base_start=4, base_end=3, ours="agent\n", theirs="3\n4\n"),)
    )


def test_user_typing_the_same_change_applies_it_once():
    assert rebase(BASE, OURS, OURS) == Rebased(OURS, 1, ())
    theirs = text("zero", "one", "two", "THREE", "four", "five", "six", "seven")
    assert rebase(BASE, OURS, theirs) == Rebased(theirs, 1, ())


def test_multiple_hunks_one_conflicting_applies_the_others():
    ours = text("ONE", "two", "THREE", "four", "FIVE", "six", "seven", "eight")
    theirs = text("one", "two", "3", "four", "five", "six", "seven")
    assert rebase(BASE, ours, theirs) == Rebased(
        text("ONE", "two", "3", "four", "FIVE", "six", "seven", "eight"),
        3,
        (Conflict(base_start=3, base_end=3, ours="THREE\n", theirs="3\n"),),
    )


def test_one_user_change_can_conflict_with_two_hunks():
    ours = text("one", "two", "THREE", "four", "FIVE", "six", "seven")
    theirs = text("one", "two", "3 4 5", "six", "seven")
    assert rebase(BASE, ours, theirs) == Rebased(
        theirs,
        0,
        (
            Conflict(base_start=3, base_end=3, ours="THREE\n", theirs="3 4 5\n"),
            Conflict(base_start=5, base_end=5, ours="FIVE\n", theirs="3 4 5\n"),
        ),
    )


def test_crlf_is_preserved():
    base = text("one", "two", "three", eol="\r\n")
    ours = text("one", "TWO", "three", eol="\r\n")
    theirs = text("zero", "one", "two", "three", eol="\r\n")
    assert rebase(base, ours, theirs) == Rebased(
        text("zero", "one", "TWO", "three", eol="\r\n"), 1, ()
    )


def test_mixed_line_endings_are_preserved():
    base = "one\r\ntwo\nthree\r\n"
    assert rebase(base, "one\r\nTWO\nthree\r\n", "zero\none\r\ntwo\nthree\r\n").text == (
        "zero\none\r\nTWO\nthree\r\n"
    )


def test_missing_final_newline_is_preserved():
    base = "one\ntwo\nthree"
    assert rebase(base, "ONE\ntwo\nthree", "one\ntwo\n2½\nthree") == Rebased(
        "ONE\ntwo\n2½\nthree", 1, ()
    )


def test_agent_appending_after_a_last_line_without_newline():
    base = "one\ntwo\nthree"
    assert rebase(base, "one\ntwo\nthree\nfour", "ONE\ntwo\nthree") == Rebased(
        "ONE\ntwo\nthree\nfour", 1, ()
    )


def test_form_feed_and_unicode_separators_do_not_split_lines():
    base = "one\x0cstill one\u2028and\x85one\ntwo\n"
    assert split_lines(base) == ["one\x0cstill one\u2028and\x85one\n", "two\n"]
    ours = "one\x0cstill one\u2028and\x85one\nTWO\n"
    theirs = "one\x0cSTILL one\u2028and\x85one\ntwo\n"
    assert rebase(base, ours, theirs) == Rebased("one\x0cSTILL one\u2028and\x85one\nTWO\n", 1, ())


def test_empty_texts():
    assert rebase("", "", "") == Rebased("", 0, ())
    assert rebase("", "a\n", "") == Rebased("a\n", 1, ())
    assert rebase("", "", "b\n") == Rebased("b\n", 0, ())
    assert rebase("", "a\n", "b\n") == Rebased("b\n", 0, (Conflict(1, 0, "a\n", "b\n"),))


# -- properties ---------------------------------------------------------------


@st.composite
def disjoint_changes(draw: st.DrawFn) -> tuple[str, str, str, str]:
    """``(base, ours, theirs, expected)``: changes on separate lines, ``expected`` has both.

    Lines are unique labels so that difflib finds exactly the drawn regions; each region
    belongs to the agent or to the user (the first two to one each) and at least one
    unchanged line separates regions.
    """
    size = draw(st.integers(0, 20))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    final_newline = draw(st.booleans())
    base = [f"base {i}" for i in range(size)]
    labels = count()
    regions: list[tuple[int, int, str, list[str]]] = []  # base [start, end) -> new, by owner
    owners = draw(st.permutations(["ours", "theirs"])) + draw(
        st.lists(st.sampled_from(["ours", "theirs"]), max_size=4)
    )
    start = draw(st.integers(0, 2))
    for owner in owners:
        if start > size:
            break
        end = draw(st.integers(start, min(size, start + 3)))
        added = draw(st.integers(0 if end > start else 1, 3))
        regions.append((start, end, owner, [f"{owner} {next(labels)}" for _ in range(added)]))
        start = end + draw(st.integers(1, 3))

    def render(owners: set[str]) -> str:
        lines: list[str] = []
        cursor = 0
        for start, end, owner, new in regions:
            if owner in owners:
                lines += base[cursor:start] + new
                cursor = end
        lines += base[cursor:]
        joined = eol.join(lines)
        return joined + eol if lines and final_newline else joined

    return render(set()), render({"ours"}), render({"theirs"}), render({"ours", "theirs"})


@pytest.mark.slow
@PROPERTY
@given(disjoint_changes())
def test_changes_on_separate_lines_merge(case: tuple[str, str, str, str]):
    base, ours, theirs, expected = case
    result = rebase(base, ours, theirs)
    assert result.conflicts == ()
    assert result.text == expected


small_texts = st.lists(
    st.sampled_from(["a\n", "b\n", "c", "\r\n", "a\r\n", "\x0c\n", "\u2028", "\x85b\n", "\n"]),
    max_size=10,
).map("".join)
any_texts = st.one_of(small_texts, st.text(max_size=40))


@PROPERTY
@given(small_texts, small_texts)
def test_untouched_buffer_gives_the_proposal(base: str, ours: str):
    result = rebase(base, ours, base)
    assert (result.text, result.conflicts) == (ours, ())


@PROPERTY
@given(small_texts, small_texts)
def test_empty_proposal_gives_the_buffer(base: str, theirs: str):
    assert rebase(base, base, theirs) == Rebased(theirs, 0, ())


@PROPERTY
@given(small_texts, small_texts)
def test_user_typing_the_whole_proposal_gives_it_with_nothing_conflicting(base: str, ours: str):
    result = rebase(base, ours, ours)
    assert (result.text, result.conflicts) == (ours, ())
    assert result == rebase(base, ours, base)


@pytest.mark.slow
@PROPERTY
@given(any_texts, any_texts, any_texts)
def test_any_strings_give_a_result(base: str, ours: str, theirs: str):
    result = rebase(base, ours, theirs)
    for conflict in result.conflicts:
        assert conflict.ours in ours
        assert conflict.theirs in theirs
        assert 1 <= conflict.base_start <= conflict.base_end + 1 <= len(split_lines(base)) + 1
