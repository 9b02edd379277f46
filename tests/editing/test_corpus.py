"""Every case of the edit corpus, scored with the same rules as ``editing.eval``.

The corpus in ``tests/edit-corpus`` is a copy of the shared one (format in its
FORMAT.md). Cases whose tool the engine does not handle yet are skipped.
"""

from pathlib import Path

import pytest

from editing.corpus import SUPPORTED_TOOLS, Case, load_cases, run, verdict

CORPUS = Path(__file__).parent.parent / "edit-corpus" / "cases"
CASES = load_cases(CORPUS)


def test_corpus_is_present():
    assert len(CASES) >= 60


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_case(case: Case):
    if case.request["tool"] not in SUPPORTED_TOOLS:
        pytest.skip(f"{case.request['tool']} requests are not handled yet")
    outcome = run(case)
    assert verdict(case, outcome) == "correct", outcome.message
    if case.expect["outcome"] == "refused":
        assert outcome.reason == case.expect["reason"]
    assert outcome.message, "every outcome carries a message for the model"
