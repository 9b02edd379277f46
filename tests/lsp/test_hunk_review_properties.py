"""Properties of the review's text following (``lsp_server.hunk_review``), with hypothesis.

Whatever the client applies or the user types, a hunk still pending after
``update`` replaces exactly the text it was made for (its region of the new
text holds the lines it was made to replace) with exactly the model's text;
the hunks stay in order and apart; and a hunk the client applied is the
one accepted. A corrupt result (text changed that no one asked for) is the
worst bug there is.
"""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agent.staging.hunks import StagedText, apply
from agent.staging.line_cut import split_lines
from agent.staging.proposal import ProposedChange
from lsp_server.hunk_review import HunkReview, Item, Kind, State

LINES = st.lists(
    st.sampled_from(["a\n", "b\n", "c\n", "def f():\n", "    x = 1\n", "\n"]),
    min_size=1,
    max_size=12,
)


@st.composite
def staged(draw: st.DrawFn) -> tuple[str, StagedText]:
    """A text and some edits of whole lines staged on it."""
    base = "".join(draw(LINES))
    text = StagedText(base)
    for _ in range(draw(st.integers(1, 4))):
        lines = split_lines(text.text())
        start = draw(st.integers(0, len(lines)))
        end = draw(st.integers(start, min(len(lines), start + 2)))
        new = "".join(draw(st.lists(st.sampled_from(["X\n", "Y\n", "    y = 2\n"]), max_size=2)))
        offsets = [0]
        for line in lines:
            offsets.append(offsets[-1] + len(line))
        text.replace(offsets[start], offsets[end], new, f"edit {_}")
    return base, text


def review_of(base: str, text: StagedText) -> HunkReview:
    change = ProposedChange("f.py", base, text.text(), ("edits",), hunks=tuple(text.hunks))
    items = [Item(f"h{i}", Kind.HUNK, "f.py", h.label, change, h) for i, h in enumerate(text.hunks)]
    return HunkReview("r", proposal=None, items=items, texts={"f.py": base})  # type: ignore[arg-type]


def assert_pending_hunks_intact(review: HunkReview, base: str, now: str) -> None:
    pending = [i for i in review.items if i.state is State.PENDING]
    ends = -1
    for item in sorted(pending, key=lambda i: i.hunk.start):  # type: ignore[union-attr]
        hunk, original = item.hunk, item.change.hunks[int(item.id[1:])]
        assert hunk is not None
        assert now[hunk.start : hunk.end] == base[original.start : original.end]
        assert hunk.text == original.text
        assert hunk.start >= ends, "hunks overlap"
        ends = hunk.end


@settings(max_examples=300, deadline=None)
@given(staged(), st.data())
def test_the_hunks_the_client_applied_are_the_ones_accepted(case, data):
    base, text = case
    review = review_of(base, text)
    chosen = data.draw(st.lists(st.booleans(), min_size=len(text.hunks), max_size=len(text.hunks)))
    now = apply(base, [h for h, c in zip(text.hunks, chosen, strict=True) if c])

    review.update("f.py", now)

    if now != base:
        accepted = [i.state is State.ACCEPTED for i in review.items]
        # Two choices can give one text (a hunk that re-inserts what a neighbour deleted);
        # then any reading the text allows is right, as long as it gives the text.
        reading = [h for h, a in zip(text.hunks, accepted, strict=True) if a]
        assert apply(base, reading) == now
    assert_pending_hunks_intact(review, base, now)
    pending = [i for i in review.items if i.state is State.PENDING]
    if pending:
        assert review.edit_for(pending) == text.text(), "the rest still gives the proposal"


@settings(max_examples=300, deadline=None)
@given(staged(), st.data())
def test_typing_anywhere_never_changes_what_a_pending_hunk_does(case, data):
    base, text = case
    review = review_of(base, text)
    lines = split_lines(base)
    start = data.draw(st.integers(0, len(lines)))
    end = data.draw(st.integers(start, min(len(lines), start + 2)))
    typed = data.draw(st.lists(st.sampled_from(["typed\n", "a\n", "X\n", ""]), max_size=3))
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    now = base[: offsets[start]] + "".join(typed) + base[offsets[end] :]

    review.update("f.py", now)

    assert_pending_hunks_intact(review, base, now)
    for item in review.items:
        assert item.state in (State.PENDING, State.STALE, State.ACCEPTED)
        assert 1 <= item.line <= now.count("\n") + 1


@settings(max_examples=200, deadline=None)
@given(staged(), st.data())
def test_typing_then_accepting_one_hunk_lands_exactly_it(case, data):
    base, text = case
    assume(text.hunks)  # edits that undid each other leave none
    review = review_of(base, text)
    now = "# typed\n" + base  # above every hunk
    review.update("f.py", now)
    item = data.draw(st.sampled_from(review.items))
    assume(item.state is State.PENDING)  # an insertion at the top clashes with the typing
    assert item.hunk is not None

    landed = review.edit_for([item])
    review.expect([item])  # the server sent it
    review.update("f.py", landed)

    assert item.state is State.ACCEPTED
    index = int(item.id[1:])
    assert landed == "# typed\n" + apply(base, [text.hunks[index]])
    assert_pending_hunks_intact(review, base, landed)
