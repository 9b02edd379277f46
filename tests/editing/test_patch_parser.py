"""The patch format's parser, renderer and detector, rule by rule, on small inline patches.

The grammar and the leniency/strictness rules are in the docstring of
``editing/patch/parser.py``; each section below follows one group of them.
"""

from __future__ import annotations

import pytest

from editing.errors import PatchParseError, Reason
from editing.patch import (
    AddFile,
    Chunk,
    DeleteFile,
    Patch,
    PatchStream,
    UpdateFile,
    looks_like_patch,
    parse_patch,
    render_patch,
)

# -- helpers ------------------------------------------------------------------


def patch(*lines: str) -> str:
    """The patch text made of ``lines``, each ended by a newline."""
    return "".join(line + "\n" for line in lines)


def only_op(text: str):
    """The single operation of the patch in ``text``."""
    (op,) = parse_patch(text).ops
    return op


def updated(op: AddFile | DeleteFile | UpdateFile) -> UpdateFile:
    """The operation, which updates a file."""
    assert isinstance(op, UpdateFile), op
    return op


def parse_error(text: str) -> PatchParseError:
    with pytest.raises(PatchParseError) as caught:
        parse_patch(text)
    return caught.value


UPDATE_CART = patch(
    "*** Begin Patch",
    "*** Update File: shop/cart.py",
    "@@ class Cart",
    "@@ def total(self):",
    "     result = 0",
    "-    for item in self.items:",
    "+    for item in self.lines:",
    "         result += item.price",
    "*** End Patch",
)


# -- the operations -----------------------------------------------------------


def test_add_file_content_is_its_lines_joined_with_a_final_newline():
    op = only_op(
        patch(
            "*** Begin Patch", "*** Add File: hello.py", "+print('hi')", "+x = 1", "*** End Patch"
        )
    )
    assert op == AddFile("hello.py", "print('hi')\nx = 1\n")
    assert op.line == 2


def test_add_file_keeps_everything_after_the_plus():
    op = only_op(
        patch(
            "*** Begin Patch",
            "*** Add File: a.txt",
            "+    indented  ",
            "+*** End Patch",
            "+-minus",
            "+\t",
            "*** End Patch",
        )
    )
    assert op.content == "    indented  \n*** End Patch\n-minus\n\t\n"


def test_add_file_blank_line_between_plus_lines_is_an_empty_line():
    op = only_op(patch("*** Begin Patch", "*** Add File: a.py", "+a", "", "+b", "*** End Patch"))
    assert op.content == "a\n\nb\n"


def test_add_file_lone_plus_is_an_empty_line():
    op = only_op(
        patch("*** Begin Patch", "*** Add File: a.py", "+a", "+", "+b", "+", "*** End Patch")
    )
    assert op.content == "a\n\nb\n\n"


def test_add_file_blank_lines_after_its_last_line_are_separators():
    op = only_op(patch("*** Begin Patch", "*** Add File: a.py", "+a", "", "", "*** End Patch"))
    assert op.content == "a\n"


def test_add_file_without_lines_is_an_empty_file():
    assert only_op(patch("*** Begin Patch", "*** Add File: empty.txt", "*** End Patch")) == (
        AddFile("empty.txt", "")
    )


def test_delete_file():
    op = only_op(patch("*** Begin Patch", "*** Delete File: old/thing.py", "*** End Patch"))
    assert op == DeleteFile("old/thing.py")
    assert op.line == 2


def test_update_file_chunk_has_anchors_lines_and_old_and_new_lines():
    op = only_op(UPDATE_CART)
    assert op == UpdateFile(
        "shop/cart.py",
        (
            Chunk(
                ("class Cart", "def total(self):"),
                (
                    (" ", "    result = 0"),
                    ("-", "    for item in self.items:"),
                    ("+", "    for item in self.lines:"),
                    (" ", "        result += item.price"),
                ),
            ),
        ),
    )
    (chunk,) = op.chunks
    assert chunk.old_lines == [
        "    result = 0",
        "    for item in self.items:",
        "        result += item.price",
    ]
    assert chunk.new_lines == [
        "    result = 0",
        "    for item in self.lines:",
        "        result += item.price",
    ]
    assert chunk.end_of_file is False
    assert op.move_to is None
    assert (op.line, chunk.line) == (2, 3)


def test_update_file_with_several_chunks():
    op = only_op(
        patch(
            "*** Begin Patch",
            "*** Update File: a.py",
            "@@ def f():",
            "-    return 1",
            "+    return 2",
            "@@ def g():",
            "-    return 3",
            "+    return 4",
            "*** End Patch",
        )
    )
    assert op.chunks == (
        Chunk(("def f():",), (("-", "    return 1"), ("+", "    return 2"))),
        Chunk(("def g():",), (("-", "    return 3"), ("+", "    return 4"))),
    )
    assert [chunk.line for chunk in op.chunks] == [3, 6]


def test_move_to_renames_the_updated_file():
    op = only_op(
        patch(
            "*** Begin Patch",
            "*** Update File: src/old.py",
            "*** Move to: src/new.py",
            "@@",
            "-x = 1",
            "+x = 2",
            "*** End Patch",
        )
    )
    assert op == UpdateFile(
        "src/old.py", (Chunk((), (("-", "x = 1"), ("+", "x = 2"))),), "src/new.py"
    )
    assert op.chunks[0].line == 4


def test_end_of_file_marks_its_chunk():
    op = only_op(
        patch(
            "*** Begin Patch",
            "*** Update File: a.py",
            "@@ def f():",
            " x = 1",
            "+y = 2",
            "*** End of File",
            "@@ def g():",
            "-z = 3",
            "*** End Patch",
        )
    )
    assert [chunk.end_of_file for chunk in op.chunks] == [True, False]
    assert op.chunks[0].lines == ((" ", "x = 1"), ("+", "y = 2"))


def test_operations_keep_their_order_and_lines():
    ops = parse_patch(
        patch(
            "*** Begin Patch",
            "*** Delete File: a",
            "*** Add File: b",
            "+b",
            "*** Update File: c",
            " c",
            "+d",
            "*** Delete File: e",
            "*** End Patch",
        )
    ).ops
    assert [type(op) for op in ops] == [DeleteFile, AddFile, UpdateFile, DeleteFile]
    assert [op.path for op in ops] == ["a", "b", "c", "e"]
    assert [op.line for op in ops] == [2, 3, 5, 8]


def test_paths_are_every_path_the_operations_name():
    text = patch(
        "*** Begin Patch",
        "*** Add File: a",
        "+a",
        "*** Update File: b",
        "*** Move to: c",
        "@@",
        "-b",
        "*** Delete File: d",
        "*** End Patch",
    )
    assert parse_patch(text).paths == ["a", "b", "c", "d"]


def test_line_fields_are_not_part_of_equality():
    assert DeleteFile("a", line=2) == DeleteFile("a", line=9)
    assert Chunk((), (("+", "x"),), line=1) == Chunk((), (("+", "x"),), line=5)
    assert Chunk((), (("+", "x"),)) != Chunk((), (("-", "x"),))


# -- leniency -----------------------------------------------------------------


def test_whitespace_and_blank_lines_around_the_patch_are_ignored():
    text = (
        "\n  \n\t\n" + patch("*** Begin Patch", "*** Delete File: a", "*** End Patch") + "\n \n\t"
    )
    assert parse_patch(text) == Patch((DeleteFile("a"),))
    assert parse_patch(text).ops[0].line == 5


def test_the_end_patch_line_needs_no_newline():
    assert parse_patch("*** Begin Patch\n*** Delete File: a\n*** End Patch") == Patch(
        (DeleteFile("a"),)
    )


def test_padded_markers_are_read():
    text = patch(
        "  *** Begin Patch  ",
        "\t*** Add File:   a.py  ",
        "+a",
        " *** Update File: b.py ",
        "  *** Move to: c.py",
        "@@",
        " b",
        "+c",
        "   *** End of File\t",
        "*** Delete File:  d.py",
        "  *** End Patch  ",
    )
    assert parse_patch(text) == Patch(
        (
            AddFile("a.py", "a\n"),
            UpdateFile("b.py", (Chunk((), ((" ", "b"), ("+", "c")), end_of_file=True),), "c.py"),
            DeleteFile("d.py"),
        )
    )


def test_crlf_patch_text_reads_like_lf():
    lf = patch(
        "*** Begin Patch",
        "*** Add File: a.py",
        "+a",
        "",
        "+b",
        "*** Update File: b.py",
        "@@ def f():",
        " x",
        "",
        "-y",
        "+z",
        "*** End Patch",
    )
    crlf = lf.replace("\n", "\r\n")
    assert "\r" not in repr(parse_patch(crlf))
    assert parse_patch(crlf) == parse_patch(lf)
    assert [op.line for op in parse_patch(crlf).ops] == [2, 6]


@pytest.mark.parametrize(
    "opening",
    [
        "<<EOF",
        "<<'EOF'",
        '<<"EOF"',
        "apply_patch <<EOF",
        "apply_patch <<'EOF'",
        'apply_patch <<"EOF"',
    ],
)
def test_heredoc_wrapper_is_read(opening):
    text = patch(opening, "*** Begin Patch", "*** Delete File: a.py", "*** End Patch", "EOF")
    assert parse_patch(text) == Patch((DeleteFile("a.py"),))
    assert parse_patch(text).ops[0].line == 3


def test_heredoc_terminator_is_only_accepted_after_a_wrapper():
    unwrapped = patch("*** Begin Patch", "*** Delete File: a.py", "*** End Patch", "EOF")
    assert parse_error(unwrapped).line == 4
    twice = patch(
        "<<EOF", "*** Begin Patch", "*** Delete File: a.py", "*** End Patch", "EOF", "EOF"
    )
    assert parse_error(twice).line == 6


def test_first_chunk_may_omit_the_at_at_line():
    op = only_op(
        patch(
            "*** Begin Patch",
            "*** Update File: a.py",
            " x = 1",
            "-y = 2",
            "+y = 3",
            "*** End Patch",
        )
    )
    assert op.chunks == (Chunk((), ((" ", "x = 1"), ("-", "y = 2"), ("+", "y = 3"))),)
    assert op.chunks[0].line == 3


def test_consecutive_at_at_lines_are_nested_anchors():
    op = only_op(UPDATE_CART)
    assert op.chunks[0].anchors == ("class Cart", "def total(self):")


def test_a_bare_at_at_before_an_anchor_adds_no_anchor():
    op = only_op(
        patch(
            "*** Begin Patch", "*** Update File: a.py", "@@", "@@ def f():", "+x", "*** End Patch"
        )
    )
    assert op.chunks == (Chunk(("def f():",), (("+", "x"),)),)
    assert op.chunks[0].line == 3


def test_unified_diff_hunk_header_is_read_as_its_anchor():
    op = only_op(
        patch(
            "*** Begin Patch",
            "*** Update File: a.py",
            "@@ -12,7 +12,8 @@ def f():",
            " x",
            "+y",
            "*** End Patch",
        )
    )
    assert op.chunks == (Chunk(("def f():",), ((" ", "x"), ("+", "y"))),)


@pytest.mark.parametrize("header", ["@@ -1,2 +1,3 @@", "@@ -1 +1 @@", "@@ -0,0 +1,2 @@ "])
def test_unified_diff_hunk_header_alone_is_a_bare_at_at(header):
    op = only_op(
        patch("*** Begin Patch", "*** Update File: a.py", header, " x", "+y", "*** End Patch")
    )
    assert op.chunks == (Chunk((), ((" ", "x"), ("+", "y"))),)


def test_blank_lines_between_chunks_and_between_operations_are_separators():
    text = patch(
        "*** Begin Patch",
        "",
        "*** Update File: a.py",
        "",
        "@@ def f():",
        " x",
        "+y",
        "",
        "",
        "@@ def g():",
        "-z",
        "",
        "*** Delete File: b.py",
        "",
        "*** End Patch",
    )
    assert parse_patch(text) == Patch(
        (
            UpdateFile(
                "a.py",
                (
                    Chunk(("def f():",), ((" ", "x"), ("+", "y"))),
                    Chunk(("def g():",), (("-", "z"),)),
                ),
            ),
            DeleteFile("b.py"),
        )
    )


def test_blank_line_inside_a_chunk_is_an_empty_context_line():
    op = only_op(
        patch("*** Begin Patch", "*** Update File: a.py", "@@", " a", "", "", "-b", "*** End Patch")
    )
    assert op.chunks[0].lines == ((" ", "a"), (" ", ""), (" ", ""), ("-", "b"))
    assert op.chunks[0].old_lines == ["a", "", "", "b"]
    assert op.chunks[0].new_lines == ["a", "", ""]


def test_space_only_line_inside_a_chunk_is_an_empty_context_line():
    op = only_op(
        patch("*** Begin Patch", "*** Update File: a.py", "@@", " a", " ", "-b", "*** End Patch")
    )
    assert op.chunks[0].lines == ((" ", "a"), (" ", ""), ("-", "b"))


@pytest.mark.parametrize(
    "after", ["@@ def g():", "*** End of File", "*** Delete File: b.py", "*** End Patch"]
)
def test_blank_lines_right_after_a_chunk_are_separators_not_context(after):
    lines = ["*** Begin Patch", "*** Update File: a.py", "@@ def f():", " x", "+y", "", "  ", after]
    if after == "@@ def g():":
        lines.append("-z")
    if after != "*** End Patch":
        lines.append("*** End Patch")
    op = updated(parse_patch(patch(*lines)).ops[0])
    assert op.chunks[0].lines == ((" ", "x"), ("+", "y"))


def test_indented_star_line_inside_a_chunk_is_context():
    op = only_op(
        patch(
            "*** Begin Patch",
            "*** Update File: notes.md",
            " *** not a header",
            "+*** End Patch",
            "*** End Patch",
        )
    )
    assert op.chunks[0].lines == ((" ", "*** not a header"), ("+", "*** End Patch"))


# -- strictness ---------------------------------------------------------------

PREFIX = "Patch not applied (parse error at line {line}; no file was changed): "
SUFFIX = " Send the whole patch again, corrected."

BAD_PATCHES = {
    "unknown header between operations": (
        patch("*** Begin Patch", "*** Modify File: x", "*** End Patch"),
        2,
        "is not a header of this format",
    ),
    "unknown unspaced header between operations": (
        patch("*** Begin Patch", "***Delete File: x", "*** End Patch"),
        2,
        "'***Delete File: x' is not a header of this format",
    ),
    "unknown header inside an added file": (
        patch("*** Begin Patch", "*** Add File: a", "+a", "*** Rename File: b", "*** End Patch"),
        4,
        "is not a header of this format",
    ),
    "unknown header inside an update": (
        patch("*** Begin Patch", "*** Update File: a", " a", "***", "*** End Patch"),
        4,
        "is not a header of this format",
    ),
    "added file line without plus": (
        patch("*** Begin Patch", "*** Add File: a.py", "+x = 1", "y = 2", "*** End Patch"),
        4,
        "every line of an added file starts with '+'",
    ),
    "chunk line without marker": (
        patch(
            "*** Begin Patch", "*** Update File: a.py", "@@ def f():", " x", "y", "*** End Patch"
        ),
        5,
        "every line of a chunk starts with ' ' (context), '-' (removed) or '+' (added)",
    ),
    "tab-indented chunk line": (
        patch("*** Begin Patch", "*** Update File: a.py", "\tpass", "*** End Patch"),
        3,
        "every line of a chunk starts with ' '",
    ),
    "move to after a chunk": (
        patch(
            "*** Begin Patch", "*** Update File: a", "@@", " x", "*** Move to: b", "*** End Patch"
        ),
        5,
        "'*** Move to:' must come directly after the '*** Update File:' line",
    ),
    "move to after a blank line": (
        patch(
            "*** Begin Patch",
            "*** Update File: a",
            "",
            "*** Move to: b",
            "@@",
            " x",
            "*** End Patch",
        ),
        4,
        "'*** Move to:' must come directly after",
    ),
    "move to twice": (
        patch(
            "*** Begin Patch",
            "*** Update File: a",
            "*** Move to: b",
            "*** Move to: c",
            "@@",
            " x",
            "*** End Patch",
        ),
        4,
        "'*** Move to:' must come directly after",
    ),
    "move to after an added file": (
        patch("*** Begin Patch", "*** Add File: a", "*** Move to: b", "*** End Patch"),
        3,
        "'*** Move to:' must come directly after",
    ),
    "move to after a delete": (
        patch("*** Begin Patch", "*** Delete File: a", "*** Move to: b", "*** End Patch"),
        3,
        "'*** Move to:' must come directly after",
    ),
    "update without chunks": (
        patch("*** Begin Patch", "*** Update File: a.py", "*** Delete File: b.py", "*** End Patch"),
        2,
        "'*** Update File: a.py' has no chunks",
    ),
    "at-at with no lines before end patch": (
        patch("*** Begin Patch", "*** Update File: a.py", "@@ def f():", "*** End Patch"),
        3,
        "an '@@' line has no ' ', '-' or '+' lines under it.",
    ),
    "second at-at with no lines": (
        patch(
            "*** Begin Patch",
            "*** Update File: a.py",
            "@@ def f():",
            " x",
            "",
            "@@ def g():",
            "",
            "*** Add File: b",
            "*** End Patch",
        ),
        6,
        "an '@@' line has no ' ', '-' or '+' lines under it.",
    ),
    "end of file right after at-at": (
        patch("*** Begin Patch", "*** Update File: a.py", "@@", "*** End of File", "*** End Patch"),
        4,
        "'*** End of File' must directly follow the lines of a chunk.",
    ),
    "end of file twice": (
        patch(
            "*** Begin Patch",
            "*** Update File: a.py",
            " x",
            "*** End of File",
            "*** End of File",
            "*** End Patch",
        ),
        5,
        "'*** End of File' must directly follow the lines of a chunk.",
    ),
    "end of file in an added file": (
        patch("*** Begin Patch", "*** Add File: a.py", "+x", "*** End of File", "*** End Patch"),
        4,
        "'*** End of File' must directly follow the lines of a chunk.",
    ),
    "end of file between operations": (
        patch("*** Begin Patch", "*** Delete File: a.py", "*** End of File", "*** End Patch"),
        3,
        "'*** End of File' must directly follow the lines of a chunk.",
    ),
    "chunk after end of file without at-at": (
        patch(
            "*** Begin Patch",
            "*** Update File: a.py",
            " x",
            "*** End of File",
            " y",
            "*** End Patch",
        ),
        5,
        "a chunk after '*** End of File' must start with an '@@' line.",
    ),
    "cut off inside an added file": (
        patch("*** Begin Patch", "*** Add File: a.py", "+x = 1"),
        3,
        "the patch ends without '*** End Patch', as if it was cut off",
    ),
    "cut off inside an update": (
        "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n-    retu",
        4,
        "the patch ends without '*** End Patch', as if it was cut off",
    ),
    "cut off between operations": (
        patch("*** Begin Patch", "*** Delete File: a.py"),
        2,
        "the patch ends without '*** End Patch', as if it was cut off",
    ),
    "heredoc terminator without end patch": (
        patch("apply_patch <<'EOF'", "*** Begin Patch", "*** Delete File: a.py", "EOF"),
        4,
        "the patch ends without '*** End Patch', as if it was cut off",
    ),
    "text before begin patch": (
        patch("Here is the patch:", "*** Begin Patch", "*** Delete File: a.py", "*** End Patch"),
        1,
        "expected '*** Begin Patch' as the first line, got 'Here is the patch:'.",
    ),
    "text after end patch": (
        patch("*** Begin Patch", "*** Delete File: a.py", "*** End Patch", "", "Done!"),
        5,
        "unexpected text after '*** End Patch': 'Done!'.",
    ),
    "text between operations": (
        patch("*** Begin Patch", "*** Delete File: a.py", "and then", "*** End Patch"),
        3,
        "expected a file operation ('*** Add File: <path>'",
    ),
    "no begin patch at all": (
        patch("", "  "),
        2,
        "the patch has no '*** Begin Patch' line",
    ),
    "no operations": (
        patch("*** Begin Patch", "*** End Patch"),
        2,
        "the patch has no file operations ('*** Add File:', '*** Update File:', ...).",
    ),
    "add file without path": (
        patch("*** Begin Patch", "*** Add File:", "+x", "*** End Patch"),
        2,
        "'*** Add File:' needs a path after it.",
    ),
    "delete file with blank path": (
        patch("*** Begin Patch", "*** Delete File:    ", "*** End Patch"),
        2,
        "'*** Delete File:' needs a path after it.",
    ),
    "update file without path": (
        patch("*** Begin Patch", "*** Update File: ", " x", "*** End Patch"),
        2,
        "'*** Update File:' needs a path after it.",
    ),
    "move to without path": (
        patch("*** Begin Patch", "*** Update File: a", "*** Move to:", " x", "*** End Patch"),
        3,
        "'*** Move to:' needs a path after it.",
    ),
}


@pytest.mark.parametrize(("text", "line", "problem"), BAD_PATCHES.values(), ids=BAD_PATCHES.keys())
def test_malformed_patch_is_a_parse_error_naming_the_line_and_what_was_expected(
    text, line, problem
):
    error = parse_error(text)
    assert error.line == line
    assert error.reason is Reason.PARSE_ERROR
    assert error.path == ""
    assert error.message.startswith(PREFIX.format(line=line))
    assert error.message.endswith(SUFFIX)
    assert problem in error.message
    assert str(error) == error.message


def test_the_first_error_wins():
    text = patch("*** Begin Patch", "*** Add File: a", "oops", "*** Frobnicate", "more text")
    assert parse_error(text).line == 3


# -- exact messages -----------------------------------------------------------


def test_message_for_an_unknown_header():
    text = patch("*** Begin Patch", "*** Modify File: x", "*** End Patch")
    assert parse_error(text).message == (
        "Patch not applied (parse error at line 2; no file was changed): "
        "'*** Modify File: x' is not a header of this format; the headers are "
        "'*** Add File: <path>', '*** Update File: <path>', '*** Delete File: <path>', "
        "'*** Move to: <path>', '*** End of File' and '*** End Patch'. "
        "Send the whole patch again, corrected."
    )


def test_message_for_a_missing_end_patch():
    text = patch(
        "*** Begin Patch", "*** Update File: a.py", "@@ def f():", "-    return 1", "+    return 2"
    )
    assert parse_error(text).message == (
        "Patch not applied (parse error at line 5; no file was changed): "
        "the patch ends without '*** End Patch', as if it was cut off; "
        "a patch ends with that line. Send the whole patch again, corrected."
    )


def test_message_for_an_added_line_without_plus():
    text = patch("*** Begin Patch", "*** Add File: a.py", "+x = 1", "  y = 2", "*** End Patch")
    assert parse_error(text).message == (
        "Patch not applied (parse error at line 4; no file was changed): "
        "every line of an added file starts with '+' (a lone '+' for an empty line); "
        "got 'y = 2'. Send the whole patch again, corrected."
    )


def test_message_for_an_update_without_chunks():
    text = patch("*** Begin Patch", "*** Update File: a.py", "*** End Patch")
    assert parse_error(text).message == (
        "Patch not applied (parse error at line 2; no file was changed): "
        "'*** Update File: a.py' has no chunks; give at least one chunk of ' ', '-' and '+' "
        "lines (only a rename, with '*** Move to:', needs none). Send the whole patch "
        "again, corrected."
    )


def test_an_update_with_only_a_move_is_a_rename():
    text = patch("*** Begin Patch", "*** Update File: a.py", "*** Move to: b.py", "*** End Patch")
    assert parse_patch(text).ops == (UpdateFile("a.py", (), "b.py"),)


def test_empty_text_is_reported_at_line_1():
    error = parse_error("")
    assert "the patch has no '*** Begin Patch' line" in error.message
    assert error.line == 1


# -- streaming ----------------------------------------------------------------


def test_stream_returns_a_delete_file_as_soon_as_its_line_is_complete():
    stream = PatchStream()
    assert stream.push("*** Begin Patch\n*** Delete File: a.py") == []
    assert stream.push("\n") == [DeleteFile("a.py")]
    assert stream.push("*** End Patch\n") == []
    assert stream.finish() == Patch((DeleteFile("a.py"),))


def test_stream_returns_an_add_file_once_the_next_header_line_has_arrived():
    stream = PatchStream()
    assert stream.push("*** Begin Patch\n*** Add File: a.py\n+x\n") == []
    assert stream.push("+y\n\n") == []
    assert stream.push("*** Delete") == []
    assert stream.push(" File: b.py") == []
    assert stream.push("\n*** End Patch") == [AddFile("a.py", "x\ny\n"), DeleteFile("b.py")]
    assert stream.finish() == Patch((AddFile("a.py", "x\ny\n"), DeleteFile("b.py")))


def test_stream_returns_an_update_once_end_patch_has_arrived():
    stream = PatchStream()
    head, tail = UPDATE_CART.split("*** End Patch")
    assert stream.push(head) == []
    assert stream.push("*** End Patch") == []
    (op,) = stream.push("\n")
    assert op == only_op(UPDATE_CART)
    assert stream.push(tail) == []
    assert stream.finish() == parse_patch(UPDATE_CART)


def test_stream_finish_reads_a_last_line_without_newline():
    stream = PatchStream()
    assert stream.push("*** Begin Patch\n*** Add File: a\n+a\n*** End Patch") == []
    assert stream.finish() == Patch((AddFile("a", "a\n"),))


def test_stream_finish_raises_for_a_cut_off_patch():
    stream = PatchStream()
    assert stream.push("*** Begin Patch\n*** Delete File: a\n*** Add File: b\n+b\n") == [
        DeleteFile("a")
    ]
    with pytest.raises(PatchParseError) as caught:
        stream.finish()
    assert caught.value.line == 4
    assert "as if it was cut off" in caught.value.message


def test_stream_keeps_an_error_for_finish():
    stream = PatchStream()
    assert stream.push("*** Begin Patch\n*** Delete File: a\nnonsense\n") == [DeleteFile("a")]
    assert stream.push("*** Delete File: b\n*** End Patch\n") == []
    with pytest.raises(PatchParseError) as caught:
        stream.finish()
    assert caught.value.line == 3
    assert "got 'nonsense'" in caught.value.message


SAMPLE = patch(
    "apply_patch <<'EOF'",
    "*** Begin Patch",
    "*** Add File: docs/readme.md",
    "+# Title",
    "",
    "+text",
    "*** Update File: shop/cart.py",
    "*** Move to: shop/basket.py",
    "@@ class Cart",
    "@@ def total(self):",
    "     result = 0",
    "",
    "-    return result",
    "+    return round(result, 2)",
    "",
    "@@ -40,3 +40,4 @@ def count(self):",
    "     return len(self.items)",
    "+",
    "*** End of File",
    "*** Delete File: shop/old.py",
    "*** End Patch",
    "EOF",
)


@pytest.mark.parametrize("text", [SAMPLE, SAMPLE.replace("\n", "\r\n")], ids=["lf", "crlf"])
def test_stream_fed_char_by_char_gives_the_same_patch_as_parse_patch(text):
    stream = PatchStream()
    streamed = []
    for char in text:
        streamed.extend(stream.push(char))
    result = stream.finish()
    assert result == parse_patch(text)
    assert streamed == list(result.ops)
    assert [op.line for op in streamed] == [3, 7, 20]
    assert [chunk.line for chunk in updated(result.ops[1]).chunks] == [9, 16]


def test_stream_fed_char_by_char_gives_the_same_error_as_parse_patch():
    text = SAMPLE.replace("*** End of File", "*** End Of File")
    stream = PatchStream()
    for char in text:
        stream.push(char)
    with pytest.raises(PatchParseError) as caught:
        stream.finish()
    whole = parse_error(text)
    assert (caught.value.message, caught.value.line) == (whole.message, whole.line)
    assert caught.value.line == 19


# -- rendering ----------------------------------------------------------------


def test_render_writes_the_canonical_text():
    p = Patch(
        (
            AddFile("a.py", "x = 1\n\ny = 2\n"),
            UpdateFile(
                "b.py",
                (
                    Chunk(
                        ("class B", "def f(self):"),
                        ((" ", "    a"), ("-", "    b"), ("+", "    c")),
                    ),
                    Chunk((), (("+", "z"),), end_of_file=True),
                ),
                move_to="c.py",
            ),
            DeleteFile("d.py"),
        )
    )
    assert render_patch(p) == patch(
        "*** Begin Patch",
        "*** Add File: a.py",
        "+x = 1",
        "+",
        "+y = 2",
        "*** Update File: b.py",
        "*** Move to: c.py",
        "@@ class B",
        "@@ def f(self):",
        "     a",
        "-    b",
        "+    c",
        "@@",
        "+z",
        "*** End of File",
        "*** Delete File: d.py",
        "*** End Patch",
    )


@pytest.mark.parametrize("text", [SAMPLE, UPDATE_CART], ids=["sample", "cart"])
def test_rendered_patch_parses_back_to_an_equal_patch(text):
    parsed = parse_patch(text)
    assert parse_patch(render_patch(parsed)) == parsed
    assert render_patch(parse_patch(render_patch(parsed))) == render_patch(parsed)


def test_rendered_empty_added_file_parses_back():
    p = Patch((AddFile("e", ""), AddFile("f", "\n")))
    assert parse_patch(render_patch(p)) == p


def test_rendered_added_file_keeps_a_form_feed():
    p = Patch((AddFile("a.py", "x = 1\n\x0c\ny = 2\n"),))
    assert parse_patch(render_patch(p)) == p


def test_empty_context_line_at_the_edge_of_a_chunk_is_a_separator():
    # Not representable: a blank line there separates, so it only shortens the context.
    p = Patch((UpdateFile("a.py", (Chunk(("def f():",), ((" ", ""), ("+", "x"))),)),))
    assert updated(parse_patch(render_patch(p)).ops[0]).chunks[0].lines == (("+", "x"),)


# -- detection ----------------------------------------------------------------


def test_looks_like_patch_in_prose():
    text = (
        "Sure, here is the change:\n\n"
        "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n\n"
        "Let me know if it works."
    )
    assert looks_like_patch(text)


def test_looks_like_patch_in_a_diff_fence():
    text = "```diff\n*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n```\n"
    assert looks_like_patch(text)


def test_looks_like_patch_when_padded_or_cut_off():
    assert looks_like_patch("  *** Begin Patch  \n  *** Delete File: a.py\n")


@pytest.mark.parametrize(
    "text",
    [
        "Send your change between *** Begin Patch and *** End Patch lines.",
        "*** Begin Patch\n*** End Patch\n",
        "*** Begin Patch\nI will now update File: a.py\n",
        "*** Update File: a.py\n*** Begin Patch\n",
        "*** Begin Patch\n*** Update File: \n",
        "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n-a = 1\n+a = 2\n b = 3\n",
        "def apply(patch):\n    return patch.split('\\n')\n",
        "",
    ],
    ids=[
        "prose",
        "no-op",
        "no-header",
        "op-before-begin",
        "no-path",
        "unified-diff",
        "code",
        "empty",
    ],
)
def test_does_not_look_like_patch(text):
    assert not looks_like_patch(text)
