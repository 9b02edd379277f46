"""Every case of the edit corpus, scored with the same rules as ``editing.disk.eval``.

The corpus in ``tests/edit-corpus`` is the shared one (``pub-*``, format in its
FORMAT.md) and the project's own cases for families that once failed (``fam-*``).
"""

import pytest

from editing.disk.corpus import SUPPORTED_TOOLS, Case, load_cases, run, verdict
from tests.editing.support import CORPUS

CASES = load_cases(CORPUS)
# Only the outcome is scored; where the engine's reason differs from the
# corpus's, it is on purpose:
OWN_REASONS = {
    # The chunk's '-' line (rb->tail_pos) is not in the file but its '+' line
    # is, right after its context: to the engine that is an applied change.
    "pub-patch-007": "already_applied",
}


def test_corpus_is_present():
    assert len(CASES) >= 100


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_case(case: Case):
    assert case.request["tool"] in SUPPORTED_TOOLS
    outcome = run(case)
    assert verdict(case, outcome) == "correct", outcome.message
    if case.expect["outcome"] == "refused":
        assert outcome.reason == OWN_REASONS.get(case.id, case.expect["reason"])
    assert outcome.message, "every outcome carries a message for the model"
