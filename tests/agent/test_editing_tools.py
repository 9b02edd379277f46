"""The editing tools on a real overlay: staging, stale views, retry budget, refusals."""

import asyncio
import json
from pathlib import Path

import pytest

from agent.config.settings import Settings
from agent.staging.workspace import Overlay, ToolError
from agent.tools import (
    apply_patch,
    create_file,
    default_tools,
    delete_file,
    edit,
    multi_edit,
    view_file,
)
from agent.tools.context import ToolContext
from tests.agent.overlay_support import Buffers

CALC = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
FIX_ADD = {
    "path": "calc.py",
    "old": "def add(a, b):\n    return a - b\n",
    "new": "def add(a, b):\n    return a + b\n",
    "replace_all": None,
    "description": "fix add",
}


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "calc.py").write_text(CALC, encoding="utf-8")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    return ToolContext(Overlay(tmp_path), Settings(view_max_lines=4))


def run(tool, ctx: ToolContext, **args):
    return asyncio.run(tool.TOOL.run(args, ctx))


def refusal(tool, ctx: ToolContext, **args) -> str:
    with pytest.raises(ToolError) as caught:
        run(tool, ctx, **args)
    return caught.value.message


def disk(ctx: ToolContext, path: str = "calc.py") -> str:
    return (ctx.overlay.root / path).read_text(encoding="utf-8")


def test_edit_is_staged_not_written(ctx: ToolContext):
    result = run(edit, ctx, **FIX_ADD)
    assert "-    return a - b\n+    return a + b" in result.text
    assert ctx.overlay.text("calc.py") == CALC.replace("a - b", "a + b", 1)
    assert disk(ctx) == CALC
    assert [r.description for r in ctx.overlay.history] == ["fix add"]


def test_view_file_numbers_lines_and_caps_the_window(ctx: ToolContext):
    result = run(view_file, ctx, path="calc.py", start_line=None, end_line=None)
    assert result.text == (
        "1→def add(a, b):\n2→    return a - b\n3→\n4→\n"
        "[2 more lines: view with start_line=5 to see them]"
    )
    assert run(view_file, ctx, path="calc.py", start_line=5, end_line=6).text == (
        "5→def sub(a, b):\n6→    return a - b"
    )


def test_view_file_pads_numbers_to_the_widest_shown(ctx: ToolContext):
    ctx.overlay.stage("ten.py", "".join(f"x{i}\n" for i in range(1, 11)), "ten lines")
    assert run(view_file, ctx, path="ten.py", start_line=8, end_line=9).text.startswith(
        "8→x8\n9→x9\n["
    )
    assert run(view_file, ctx, path="ten.py", start_line=9, end_line=10).text == (" 9→x9\n10→x10")


def test_view_file_sees_staged_text(ctx: ToolContext):
    run(create_file, ctx, path="pkg/new.py", content="x = 1\n", description="add module")
    assert run(view_file, ctx, path="pkg/new.py", start_line=None, end_line=None).text == "1→x = 1"


def test_refusals_carry_the_engines_message(ctx: ToolContext):
    message = refusal(
        edit,
        ctx,
        path="calc.py",
        old="    return a - b\n",
        new="    return 0\n",
        replace_all=None,
        description="x",
    )
    assert message.startswith("Edit not applied to calc.py: old matches 2 places")


def test_retry_budget_shows_the_file_after_two_failures(ctx: ToolContext):
    args = {"path": "calc.py", "new": "y", "replace_all": None, "description": "x"}
    first = refusal(edit, ctx, old="nothing like it 1", **args)
    second = refusal(edit, ctx, old="nothing like it 2", **args)
    third = refusal(edit, ctx, old="nothing like it 3", **args)
    assert "failed edits" not in first + second
    assert (
        "That is 3 failed edits of calc.py in a row. Work from its current text, lines 1-7:"
        in third
    )
    assert "5→def sub(a, b):" in third


def test_retry_budget_shows_a_big_file_around_the_failure(ctx: ToolContext):
    big = "".join(f"value_{n} = {n}\n" for n in range(1, 301))
    ctx.overlay.stage("big.py", big, "a big file")
    args = {"path": "big.py", "new": "y", "replace_all": None, "description": "x"}
    for _ in range(2):
        refusal(edit, ctx, old="value_200 = two hundred\n", **args)
    third = refusal(edit, ctx, old="value_200 = two hundred\n", **args)
    assert "Work from its current text, lines 180-219:\n180→value_180 = 180\n" in third
    assert third.endswith("219→value_219 = 219")


def test_stale_view_refuses_an_edit_of_a_part_that_changed(ctx: ToolContext):
    run(view_file, ctx, path="calc.py", start_line=None, end_line=None)
    # The user changes sub() in the editor after the model looked.
    (ctx.overlay.root / "calc.py").write_text(CALC.replace("def sub(a, b):", "def sub(a, b, c=0):"))
    message = refusal(
        edit,
        ctx,
        path="calc.py",
        old="def sub(a, b, c=0):\n    return a - b\n",
        new="def sub(a, b, c=0):\n    return a - b - c\n",
        replace_all=None,
        description="use c",
    )
    assert message.startswith("Edit not applied: calc.py changed since you last saw it")
    assert "Lines 3-7 now read:\n3→\n4→\n5→def sub(a, b, c=0):\n6→    return a - b\n" in message
    # An edit elsewhere in the file still goes through.
    run(edit, ctx, **FIX_ADD)
    assert ctx.overlay.text("calc.py") == CALC.replace("a - b", "a + b", 1).replace(
        "def sub(a, b):", "def sub(a, b, c=0):"
    )


def test_multi_edit_all_or_nothing(ctx: ToolContext):
    edits = [
        {
            "old": "def add(a, b):\n    return a - b",
            "new": "def add(a, b):\n    return a + b",
            "replace_all": None,
        },
        {"old": "def mul(a, b):", "new": "def mul(x, y):", "replace_all": None},
    ]
    message = refusal(multi_edit, ctx, path="calc.py", edits=edits, description="x")
    assert message.startswith("Edit 2 of 2:")
    assert ctx.overlay.staged == {}


def test_apply_patch_stages_every_file(ctx: ToolContext):
    patch = (
        "*** Begin Patch\n*** Update File: calc.py\n@@ def add(a, b):\n-    return a - b\n"
        "+    return a + b\n*** Add File: README.md\n+calc\n*** End Patch\n"
    )
    result = run(apply_patch, ctx, patch=patch, description="fix add, document")
    assert result.summary == "Patched M calc.py, A README.md"
    assert ctx.overlay.text("README.md") == "calc\n"
    assert ctx.overlay.text("calc.py") == CALC.replace("a - b", "a + b", 1)


def test_apply_patch_stages_no_file_when_one_is_stale(ctx: ToolContext):
    (ctx.overlay.root / "notes.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    run(view_file, ctx, path="notes.txt", start_line=None, end_line=None)
    (ctx.overlay.root / "notes.txt").write_text("one\nTWO, typed by the user\nthree\n")
    patch = (
        "*** Begin Patch\n*** Update File: calc.py\n@@ def add(a, b):\n-    return a - b\n"
        "+    return a + b\n*** Update File: notes.txt\n-TWO, typed by the user\n+two\n"
        "*** End Patch\n"
    )
    message = refusal(apply_patch, ctx, patch=patch, description="fix add, notes")
    assert message.startswith("Edit not applied: notes.txt changed since you last saw it")
    assert ctx.overlay.staged == {}


def test_apply_patch_parse_error_is_returned(ctx: ToolContext):
    message = refusal(
        apply_patch, ctx, patch="*** Begin Patch\n*** Frobnicate: x\n", description="x"
    )
    assert message.startswith("Patch not applied (parse error at line 2")


def test_create_refuses_an_existing_file_and_delete_a_missing_one(ctx: ToolContext):
    assert "already exists" in refusal(
        create_file, ctx, path="calc.py", content="", description="x"
    )
    assert "does not exist" in refusal(delete_file, ctx, path="nope.py", description="x")
    run(delete_file, ctx, path="calc.py", description="gone")
    assert ctx.overlay.text("calc.py") is None
    assert "does not exist" in refusal(
        view_file, ctx, path="calc.py", start_line=None, end_line=None
    )


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        (create_file, {"path": "../outside.py", "content": "x", "description": "x"}),
        (create_file, {"path": "/etc/passwd", "content": "x", "description": "x"}),
        (create_file, {"path": ".git/hooks/pre-commit", "content": "x", "description": "x"}),
        (delete_file, {"path": ".git/config", "description": "x"}),
    ],
)
def test_paths_outside_and_git_are_refused(ctx: ToolContext, tool, args):
    refusal(tool, ctx, **args)
    assert ctx.overlay.staged == {}


def test_git_can_be_read(ctx: ToolContext):
    assert "[core]" in run(view_file, ctx, path=".git/config", start_line=None, end_line=None).text


def test_symlink_leading_out_is_refused(ctx: ToolContext, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "secret.txt"
    outside.write_text("token\n", encoding="utf-8")
    (ctx.overlay.root / "link.txt").symlink_to(outside)
    message = refusal(view_file, ctx, path="link.txt", start_line=None, end_line=None)
    assert "symbolic link" in message


def test_binary_file_is_refused(ctx: ToolContext):
    (ctx.overlay.root / "logo.png").write_bytes(b"\x89PNG\x00\x01")
    assert "binary" in refusal(view_file, ctx, path="logo.png", start_line=None, end_line=None)
    assert "binary" in refusal(
        edit, ctx, path="logo.png", old="PNG", new="GIF", replace_all=None, description="x"
    )


def test_editor_buffers_are_the_base_layer(tmp_path: Path):
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")

    ctx = ToolContext(Overlay(tmp_path, Buffers({"a.py": "x = 2  # unsaved\n"})), Settings())
    assert "unsaved" in run(view_file, ctx, path="a.py", start_line=None, end_line=None).text
    run(edit, ctx, path="a.py", old="x = 2", new="x = 3", replace_all=None, description="x")
    change = next(ctx.overlay.changed())
    assert change == ("a.py", "x = 2  # unsaved\n", "x = 3  # unsaved\n")


@pytest.mark.parametrize("name", list(default_tools()))
def test_spec_files_are_strict_schemas(name: str):
    spec = default_tools()[name].spec
    assert spec.name == name
    assert spec.parameters["additionalProperties"] is False
    assert sorted(spec.parameters["required"]) == sorted(spec.parameters["properties"])
    json.dumps(spec.parameters)


HIDDEN_NAME = "evil.py\x1b[2K\x1b[1GREADME.md"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        (create_file, {"path": HIDDEN_NAME, "content": "x = 1\n", "description": "d"}),
        (edit, {**FIX_ADD, "path": "calc.py\u202e"}),
        (view_file, {"path": "calc\u200b.py"}),
        (delete_file, {"path": "calc.py\r", "description": "d"}),
        (
            apply_patch,
            {
                "patch": f"*** Begin Patch\n*** Add File: {HIDDEN_NAME}\n+x = 1\n*** End Patch\n",
                "description": "d",
            },
        ),
    ],
)
def test_every_tool_refuses_a_path_that_would_not_show_as_what_it_is(tool, args, ctx: ToolContext):
    message = refusal(tool, ctx, **args)
    assert "control or invisible character" in message
    assert ctx.overlay.staged == {}
    assert sorted(p.name for p in ctx.overlay.root.iterdir()) == [".git", "calc.py"]
