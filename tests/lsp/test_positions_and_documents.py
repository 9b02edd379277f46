"""Positions and line endings at the edge: CRLF documents keep CRLF, and text with
CJK, emoji and combining accents gets ranges in VS Code's UTF-16 and Neovim's UTF-8.

The ranges the server sends are checked against offsets computed here from the
encodings themselves (not with ``lsp_server.positions``), and so are the
positions of the user's typing sent to the server."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp.editor import (
    FLAVOURS,
    Editor,
    Editors,
    ask,
    command,
    document_edit,
    new_text,
    only_document_edit,
)
from tests.support.openai_server import Call, ScriptedServer, Turn
from tests.support.scripted_task import CALC, edit

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]

FINISH = Call("finish", {"summary": "Done."})
UNITS = {"utf-16": lambda s: len(s.encode("utf-16-le")) // 2, "utf-8": lambda s: len(s.encode())}


def text_edits(
    editor: Editor,
) -> list[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit]:
    (params,) = editor.edits
    return list(only_document_edit(params).edits)


def point(range_: types.Range) -> tuple[int, int, int, int]:
    return (range_.start.line, range_.start.character, range_.end.line, range_.end.character)


# -- CRLF ---------------------------------------------------------------------------------

CRLF = CALC.replace("\n", "\r\n")
SUM = edit(
    "def add(a, b):\n    return a - b\n",
    "def add(a, b):\n    # the sum\n    return a + b\n",
    "the sum",
)


@pytest.mark.parametrize(
    ("flavour", "where"), [("vscode", "open"), ("neovim", "open"), ("vscode", "on disk")]
)
async def test_a_crlf_document_stays_crlf(
    editors: Editors, openai_server: ScriptedServer, project: Path, flavour: str, where: str
):
    (project / "calc.py").write_bytes(CRLF.encode())
    editor = await editors.applying(flavour)
    if where == "open":
        editor.open("calc.py")
    openai_server.add(Turn(tool_calls=[SUM]), Turn(tool_calls=[FINISH]))

    result = await ask(editor.client, "Fix add.")

    assert result["outcome"] == "applied", result
    (hunk,) = text_edits(editor)
    assert new_text(hunk) == "    # the sum\r\n    return a + b\r\n"
    assert point(hunk.range) == (1, 0, 2, 0)
    text = editor.text("calc.py")
    assert text == CRLF.replace("    return a - b\r\n", "    # the sum\r\n    return a + b\r\n", 1)
    assert "\n" not in text.replace("\r\n", ""), "no bare LF"


# -- non-ASCII ------------------------------------------------------------------------------

# Line 0: CJK, an astral emoji (2 UTF-16 units, 4 UTF-8 bytes) and "e" + U+0301.
# Line 1: U+2028 and a form feed, which are not line breaks in LSP.
# Line 3: the line the agent edits, non-ASCII before the edited text.
# Line 5: the last line, without a final newline, also edited.
LINES = [
    "# 日本語のコメント 🎉 cafe\u0301\n",
    "SEP = 'a\u2028b\x0cc'\n",
    "def greet(name):\n",
    '    return "こんにちは 👋🏽 " + name + " — ok"\n',
    "\n",
    'TAIL = "nai\u0308ve 🎉 ünïcode" + "x"',
]
UNICODE = "".join(LINES)
GREET = edit('" — ok"', '" — fine"', "greeting", path="u.py")
TAIL = edit('+ "x"', '+ "y"', "tail", path="u.py")
UNICODE_FIXED = UNICODE.replace(" — ok", " — fine").replace('+ "x"', '+ "y"')


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_ranges_after_non_ascii_text(
    editors: Editors, openai_server: ScriptedServer, project: Path, flavour: str
):
    (project / "u.py").write_text(UNICODE, encoding="utf-8")
    editor = await editors.applying(flavour)
    editor.open("u.py")
    openai_server.add(Turn(tool_calls=[GREET, TAIL]), Turn(tool_calls=[FINISH]))

    result = await ask(editor.client, "Change the greeting and the tail.")

    assert result["outcome"] == "applied", result
    units = UNITS[editor.encoding]
    assert [(point(e.range), new_text(e)) for e in text_edits(editor)] == [
        ((3, 0, 4, 0), LINES[3].replace(" — ok", " — fine")),
        ((5, 0, 5, units(LINES[5])), LINES[5].replace('+ "x"', '+ "y"')),
    ]
    assert editor.text("u.py") == UNICODE_FIXED


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_typing_after_non_ascii_text_reaches_the_agent_exactly(
    editors: Editors, openai_server: ScriptedServer, project: Path, flavour: str
):
    """The user types after the emoji and the accent; positions computed here from the
    encoding. The agent's edit quotes the typed text, so it only applies if the server's
    copy of the buffer is exact."""
    (project / "u.py").write_text(UNICODE, encoding="utf-8")
    editor = await editors.applying(flavour)
    uri = editor.open("u.py")
    units = UNITS[editor.encoding]
    column = units(LINES[0].rstrip("\n"))  # end of line 0, after "cafe\u0301"
    typed_0 = " — 編集 ✍🏽"
    column_5 = units('TAIL = "nai\u0308ve 🎉')  # inside line 5's string, after the emoji
    typed_5 = " 🙂"
    for version, (line, character, new) in enumerate(
        [(0, column, typed_0), (5, column_5, typed_5)], start=2
    ):
        at = types.Position(line=line, character=character)
        editor.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(start=at, end=at), text=new
                    )
                ],
            )
        )
    typed = UNICODE.replace("cafe\u0301\n", "cafe\u0301" + typed_0 + "\n").replace(
        "🎉 ünïcode", "🎉" + typed_5 + " ünïcode"
    )
    editor.buffers[uri].text, editor.buffers[uri].version = typed, 3
    await command(editor.client, "surehand.status")  # the changes are in
    openai_server.add(
        Turn(
            tool_calls=[
                edit("cafe\u0301" + typed_0, "cafe\u0301" + typed_0 + "!", "bang", path="u.py"),
                edit("🎉" + typed_5 + " ü", "🎉" + typed_5 + " u", "plain u", path="u.py"),
            ]
        ),
        Turn(tool_calls=[FINISH]),
    )

    result = await ask(editor.client, "Edit what I typed.")

    assert result["outcome"] == "applied", result
    edits = text_edits(editor)
    assert [point(e.range) for e in edits] == [
        (0, 0, 1, 0),
        (5, 0, 5, units(typed.rsplit("\n", 1)[1])),
    ]
    assert document_edit(editor.edits[0]).text_document.version == 3
    assert editor.text("u.py") == typed.replace(typed_0, typed_0 + "!").replace(
        typed_5 + " ü", typed_5 + " u"
    )
