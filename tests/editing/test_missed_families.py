"""Intents the engine used to refuse: edits sharing a line, olds starting inside
a line with drift after it, and paths read as the tools read them."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pytest

from agent.staging.hunks import apply as apply_hunks
from agent.staging.workspace import Overlay, PathRefused
from editing import Edit, EditError, apply_edit, apply_edits
from editing.disk.corpus import Case, run, verdict
from editing.disk.paths import OutsideRoot, clean

MINIFIED = 'var t=3e4,e="https://api.example.com/v1";function n(n){return fetch(e+n)}\n'


# -- several edits on one line ------------------------------------------------------


def test_edits_of_separate_text_on_one_line_apply_together_in_any_order() -> None:
    edits = [Edit("t=3e4", "t=6e4"), Edit("/v1", "/v2"), Edit("fetch(e+n)", "fetch(e+n,{})")]
    want = 'var t=6e4,e="https://api.example.com/v2";function n(n){return fetch(e+n,{})}\n'
    for order in ([0, 1, 2], [2, 0, 1], [1, 2, 0]):
        result = apply_edits(MINIFIED, [edits[i] for i in order])
        assert result.text == want
        assert [(r.start, r.end) for r in result.regions] == [(1, 1)]
        assert [(w.start, w.end) for w in result.written] == [(1, 1)]


def test_edits_whose_texts_touch_apply() -> None:
    result = apply_edits("f(a)(b)\n", [Edit("f(a)", "g(a)"), Edit("(b)", "(c)")])
    assert result.text == "g(a)(c)\n"


@pytest.mark.parametrize(
    "edits",
    [
        [Edit('t=3e4,e="https', 't=6e4,e="https'), Edit('e="https://api', 'e="http://api')],
        [Edit("return fetch(e+n)", "return fetch(e)"), Edit("fetch", "get")],
    ],
)
def test_edits_whose_matched_texts_overlap_are_refused(edits: list[Edit]) -> None:
    with pytest.raises(EditError) as refused:
        apply_edits(MINIFIED, edits)
    assert refused.value.reason == "invalid_request"
    assert "overlaps" in refused.value.message


def test_a_shared_line_rewritten_beyond_a_match_is_refused_not_guessed() -> None:
    # Curly quotes found by folding: the line is written back in the file's terms
    # as a whole; merging it with another edit's line could lose either change.
    text = "say(“hi”); wait(1); say(“bye”)  \n"
    try:
        result = apply_edits(text, [Edit('say("hi")', 'say("hello")'), Edit("wait(1)", "wait(2)")])
    except EditError as error:
        assert error.reason == "invalid_request"
    else:
        assert result.text == "say(“hello”); wait(2); say(“bye”)  \n"


def test_crlf_and_a_missing_final_newline_survive_a_merge() -> None:
    text = "a = 1\r\nx = f(1, 2)"
    result = apply_edits(text, [Edit("f(1", "g(1"), Edit("2)", "3)")])
    assert result.text == "a = 1\r\nx = g(1, 3)"


def test_hunks_of_two_edits_on_one_line_give_the_result(tmp_path: Path) -> None:
    (tmp_path / "app.min.js").write_text(MINIFIED)
    overlay = Overlay(tmp_path)
    result = apply_edits(MINIFIED, [Edit("t=3e4", "t=6e4"), Edit("/v1", "/v2")], path="app.min.js")
    touched = [(r.start - 1, r.end) for r in result.regions]
    written = [(w.start - 1, w.end) for w in result.written]
    overlay.stage("app.min.js", result.text, "timeout and API version", touched, written)
    hunks = overlay.hunks("app.min.js")
    assert apply_hunks(MINIFIED, hunks) == result.text
    for size in range(len(hunks) + 1):
        for chosen in combinations(hunks, size):
            apply_hunks(MINIFIED, chosen)  # any subset applies


# -- olds that start inside a line -----------------------------------------------------

CALL = "def load(client, url):\n    response = client.fetch(url,\n                            timeout=5)\n"


def test_a_mid_line_start_with_indentation_drift_is_found_and_new_is_aligned() -> None:
    result = apply_edit(
        CALL, "client.fetch(url,\n    timeout=5)", "client.fetch(url,\n    timeout=9)"
    )
    assert result.text == CALL.replace("timeout=5", "timeout=9")


def test_the_first_line_may_carry_the_same_drift() -> None:
    old = "    client.fetch(url,\n        timeout=5)\n"
    result = apply_edit(CALL, old, "    client.fetch(url,\n        timeout=9)\n")
    assert result.text == CALL.replace("timeout=5", "timeout=9")


def test_curly_quotes_on_the_first_line_and_indentation_drift_after_it() -> None:
    text = "x = log(“start”, {\n            level: 1})\n"
    result = apply_edit(text, 'log("start", {\n  level: 1})', 'log("start", {\n  level: 2})')
    assert result.text == "x = log(“start”, {\n            level: 2})\n"


def test_a_mid_line_start_counts_with_the_whole_line_matches_of_its_level() -> None:
    text = "x = f(a,\n      b)\nf(a,\n  b)\n"
    with pytest.raises(EditError) as refused:
        apply_edit(text, "f(a,\n    b)", "f(a,\n    c)")
    assert refused.value.reason == "ambiguous"


def test_blanks_before_a_mid_line_start_are_not_a_whole_line_match() -> None:
    # Only blanks before the text: a whole-line match, found as one (not twice).
    text = "if x:\n    call(a,\n        b)\n"
    result = apply_edit(text, "call(a,\n    b)", "call(a,\n    c)")
    assert result.text == "if x:\n    call(a,\n        c)\n"


def test_the_file_blanks_after_the_last_line_stay() -> None:
    text = "r = f(a,\n      b)  \n"
    result = apply_edit(text, "f(a,\n  b)\n", "f(z,\n  b)\n")
    assert result.text == "r = f(z,\n      b)  \n"


def test_a_real_token_difference_after_a_mid_line_start_is_not_found() -> None:
    with pytest.raises(EditError) as refused:
        apply_edit(CALL, "client.fetch(url,\n    timeout=50)", "client.fetch(url,\n    timeout=9)")
    assert refused.value.reason == "not_found"


def test_patches_still_quote_whole_lines_only() -> None:
    from editing.patch import apply_patch

    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-client.fetch(url,\n-    timeout=5)\n"
    patch += "+client.fetch(url,\n+    timeout=9)\n*** End Patch\n"
    with pytest.raises(EditError):
        apply_patch(patch, {"a.py": CALL}.get)


# -- paths -------------------------------------------------------------------------

PATHS = [
    "./src/app.py",
    "src//app.py",
    "src/./app.py",
    " src/app.py ",
    "src\\app.py",
    "src/",
    "../src/app.py",
    "src/../app.py",
    "/etc/hosts",
    ".git/config",
    "./.git/HEAD",
    ".",
    "",
    "src/a\u202eb.py",
]


@pytest.mark.parametrize("path", PATHS)
def test_the_corpus_rule_is_the_overlay_rule(path: str, tmp_path: Path) -> None:
    overlay = Overlay(tmp_path)
    try:
        tools = overlay.writable(path)
    except PathRefused:
        tools = None
    try:
        ours: str | None = clean(path, to_change=True)
    except OutsideRoot:
        ours = None
    assert ours == tools


def test_the_runner_reads_a_request_path_as_the_tools_do() -> None:
    case = Case(
        "p",
        "exact",
        "",
        {"src/app.py": "x = 1\n"},
        {"tool": "multi_edit", "path": "./src/app.py", "edits": [{"old": "x = 1", "new": "x = 2"}]},
        {"outcome": "applied", "files": {"src/app.py": "x = 2\n"}},
    )
    outcome = run(case)
    assert outcome.files == {"src/app.py": "x = 2\n"}
    assert verdict(case, outcome) == "correct"


def test_the_runner_refuses_a_path_the_tools_refuse() -> None:
    case = Case(
        "p",
        "guards",
        "",
        {"app.py": "x = 1\n"},
        {"tool": "edit", "path": "../app.py", "old": "x = 1", "new": "x = 2"},
        {"outcome": "refused", "reason": "invalid_request"},
    )
    outcome = run(case)
    assert (outcome.outcome, outcome.reason) == ("refused", "invalid_request")


def test_a_first_line_that_reads_like_a_later_one_is_refused_not_mispaired() -> None:
    # Found by the differential fuzz: the write pairs lines by text, and would
    # have taken the file's first line for the unchanged tab-indented one.
    text = 'def total(total):\nprint("hello")\n\tprint("hello")\n\n'
    old, new = 'nt("hello")\nprint("hello")', 'nt("hello") # edited\nprint("hello")\nlog("added")'
    with pytest.raises(EditError) as refused:
        apply_edit(text, old, new)
    assert refused.value.reason == "invalid_request"
