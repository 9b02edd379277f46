"""Applying patches: chunk location, file operations, all or nothing."""

import pytest

from editing import Level, Reason
from editing.errors import EditError
from editing.patch import apply_patch
from tests.editing.support import refusal

SHOP = """\
class Cart:
    def add(self, item):
        if item is None:
            return
        self.items.append(item)

    def remove(self, item):
        if item is None:
            return
        self.items.remove(item)


def total(cart):
    if cart is None:
        return 0
    return sum(i.price for i in cart.items)
"""


def patch(*body: str) -> str:
    return "*** Begin Patch\n" + "".join(line + "\n" for line in body) + "*** End Patch\n"


def after(text: str, files: dict[str, str]) -> dict[str, str | None]:
    """The files the patch changes, with their new text (None: deleted or moved away)."""
    return apply_patch(text, files.get).files


def written(text: str, files: dict[str, str], path: str) -> str:
    """The new text of ``path`` once the patch is applied (neither deleted nor moved away)."""
    new = after(text, files)[path]
    assert new is not None, f"{path} is gone"
    return new


def refused(text: str, files: dict[str, str]) -> EditError:
    return refusal(apply_patch, text, files.get)


# -- locating chunks ---------------------------------------------------------------


def test_chunks_apply_in_file_order_after_each_other():
    # "if item is None: return" is in add() and remove(); the first chunk takes
    # add()'s, so the second can only be remove()'s.
    text = patch(
        "*** Update File: shop.py",
        "@@",
        "     def add(self, item):",
        "-        if item is None:",
        "+        if not item:",
        "@@",
        "-        if item is None:",
        "+        if item is None or item not in self.items:",
    )
    result = after(text, {"shop.py": SHOP})["shop.py"]
    assert result == SHOP.replace("        if item is None:", "        if not item:", 1).replace(
        "        if item is None:", "        if item is None or item not in self.items:", 1
    )


def test_anchor_selects_the_block():
    text = patch(
        "*** Update File: shop.py",
        "@@ def remove(self, item):",
        "         if item is None:",
        "-            return",
        "+            raise ValueError(item)",
    )
    result = written(text, {"shop.py": SHOP}, "shop.py")
    expected_tail = "    def remove(self, item):\n        if item is None:\n            raise ValueError(item)\n"
    assert expected_tail in result
    assert result.count("            return\n") == 1


def test_nested_anchors_class_then_method():
    text = patch(
        "*** Update File: shop.py",
        "@@ class Cart:",
        "@@ def remove(self, item):",
        "-        self.items.remove(item)",
        "+        self.items.discard(item)",
    )
    assert "self.items.discard(item)" in written(text, {"shop.py": SHOP}, "shop.py")


def test_anchor_prefix_stops_at_a_word_boundary():
    text = patch(
        "*** Update File: shop.py",
        "@@ def tot",
        "-    return sum(i.price for i in cart.items)",
        "+    return 0",
    )
    assert refused(text, {"shop.py": SHOP}).reason == Reason.NOT_FOUND


def test_unanchored_chunk_found_twice_is_ambiguous():
    text = patch(
        "*** Update File: shop.py",
        "@@",
        "         if item is None:",
        "-            return",
        "+            return None",
    )
    error = refused(text, {"shop.py": SHOP})
    assert error.reason == Reason.AMBIGUOUS
    assert "lines 3-4, 8-9" in error.message
    assert error.line == 3


def test_end_of_file_chunk_matches_the_last_lines():
    text = "a = 1\nreturn x\nb = 2\nreturn x\n"
    result = after(
        patch("*** Update File: f.py", "@@", "-return x", "+return y", "*** End of File"),
        {"f.py": text},
    )
    assert result["f.py"] == "a = 1\nreturn x\nb = 2\nreturn y\n"


def test_lines_added_after_an_anchor_go_right_after_it():
    text = patch("*** Update File: shop.py", "@@ def total(cart):", '+    """Sum of the prices."""')
    result = written(text, {"shop.py": SHOP}, "shop.py")
    assert 'def total(cart):\n    """Sum of the prices."""\n    if cart is None:' in result


def test_lines_added_without_context_or_anchor_are_refused():
    text = patch("*** Update File: shop.py", "@@", "+import os")
    assert refused(text, {"shop.py": SHOP}).reason == Reason.INVALID_REQUEST


def test_lines_added_at_the_end_of_a_file_without_final_newline():
    text = patch("*** Update File: f.txt", "@@", "+c", "*** End of File")
    assert after(text, {"f.txt": "a\nb"})["f.txt"] == "a\nb\nc"


def test_chunk_with_drifted_indentation():
    text = patch(
        "*** Update File: shop.py",
        "@@ def total(cart):",
        " if cart is None:",
        "-    return 0",
        "+    return None",
    )
    result = written(text, {"shop.py": SHOP}, "shop.py")
    assert "    if cart is None:\n        return None\n" in result
    assert apply_patch(text, {"shop.py": SHOP}.get).level == Level.INDENTATION


def test_chunk_with_curly_quotes():
    text = 'log("start")\nlog("stop")\n'
    body = ["*** Update File: f.py", " log(“start”)", "-log(“stop”)", "+log(“end”)"]
    assert after(patch(*body), {"f.py": text})["f.py"] == 'log("start")\nlog("end")\n'


def test_context_lines_keep_trailing_blanks_and_crlf():
    text = "x = 1   \r\ny = 2\r\n"
    result = after(patch("*** Update File: f.py", " x = 1", "-y = 2", "+y = 3"), {"f.py": text})
    assert result["f.py"] == "x = 1   \r\ny = 3\r\n"


# -- already applied -----------------------------------------------------------------


def test_resent_chunk_is_already_applied():
    text = patch("*** Update File: shop.py", "@@", "-    if cart is None:", "+    if not cart:")
    applied = written(text, {"shop.py": SHOP}, "shop.py")
    error = refused(text, {"shop.py": applied})
    assert error.reason == Reason.ALREADY_APPLIED
    assert "chunk 1 of 1 is already in the file at line 14:" in error.message


def test_resent_insertion_is_already_applied():
    text = patch(
        "*** Update File: shop.py",
        "@@ def total(cart):",
        "     if cart is None:",
        "         return 0",
        "+    cart.validate()",
    )
    applied = written(text, {"shop.py": SHOP}, "shop.py")
    error = refused(text, {"shop.py": applied})
    assert error.reason == Reason.ALREADY_APPLIED
    # The lines of the chunk's new text, not only those of its old text.
    assert "is already in the file at lines 14-16:" in error.message


# -- file operations -------------------------------------------------------------------


def test_add_update_delete_move_in_one_patch():
    files = {"a.txt": "one\ntwo\n", "b.txt": "bye\n", "c.txt": "x\ny\n"}
    text = patch(
        "*** Add File: new/d.txt",
        "+hello",
        "*** Update File: a.txt",
        "-two",
        "+2",
        "*** Delete File: b.txt",
        "*** Update File: c.txt",
        "*** Move to: moved/c.txt",
        "@@",
        "-y",
        "+why",
    )
    result = apply_patch(text, files.get)
    assert result.summary == ["A new/d.txt", "M a.txt", "D b.txt", "R c.txt -> moved/c.txt"]
    assert after(text, files) == {
        "new/d.txt": "hello\n",
        "a.txt": "one\n2\n",
        "b.txt": None,
        "moved/c.txt": "x\nwhy\n",
        "c.txt": None,
    }
    assert "--- c.txt\n+++ moved/c.txt\n" in result.diff


def test_a_file_moved_then_deleted_is_deleted_at_its_first_path():
    text = patch(
        "*** Update File: a.txt", "*** Move to: b.txt", "@@", "-a", "+A", "*** Delete File: b.txt"
    )
    result = apply_patch(text, {"a.txt": "a\n"}.get)
    assert result.summary == ["D a.txt"]
    assert result.files == {"a.txt": None}


def test_add_of_an_existing_path_is_refused():
    assert refused(patch("*** Add File: a.txt", "+x"), {"a.txt": "y\n"}).reason == Reason.EXISTS


def test_move_onto_an_existing_path_is_refused():
    text = patch("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-a", "+A")
    assert refused(text, {"a.txt": "a\n", "b.txt": "b\n"}).reason == Reason.EXISTS


@pytest.mark.parametrize("operation", ["*** Delete File: gone.txt", "*** Update File: gone.txt"])
def test_operation_on_a_missing_file_is_not_found(operation):
    body = [operation] if "Delete" in operation else [operation, "@@", "-a", "+b"]
    assert refused(patch(*body), {"a.txt": "a\n"}).reason == Reason.NOT_FOUND


def test_a_refused_file_refuses_the_whole_patch():
    files = {"a.txt": "a\n", "b.txt": "b\n"}
    text = patch("*** Update File: a.txt", "-a", "+A", "*** Update File: b.txt", "-zzz", "+Z")
    error = refused(text, files)
    assert error.reason == Reason.NOT_FOUND
    assert error.message.startswith(
        "Patch not applied (no file was changed): in b.txt, chunk 1 of 1 was not found."
    )


def test_later_operations_see_earlier_ones():
    text = patch("*** Add File: n.txt", "+a", "*** Update File: n.txt", "-a", "+b")
    assert after(text, {}) == {"n.txt": "b\n"}


def test_patch_changing_nothing_is_no_change():
    text = patch("*** Update File: a.txt", " a")
    assert refused(text, {"a.txt": "a\n"}).reason == Reason.NO_CHANGE


def test_placeholder_in_a_chunk_is_refused():
    text = patch(
        "*** Update File: shop.py",
        "@@ def total(cart):",
        "-    if cart is None:",
        "-        return 0",
        "+    # ... existing code ...",
    )
    assert refused(text, {"shop.py": SHOP}).reason == Reason.PLACEHOLDER


def test_bom_and_final_newline_kept_per_file():
    files = {"a.json": '\ufeff{\n  "x": 1\n}', "b.txt": "p\nq"}
    text = patch(
        "*** Update File: a.json", '-  "x": 1', '+  "x": 2', "*** Update File: b.txt", "-q", "+Q"
    )
    assert after(text, files) == {"a.json": '\ufeff{\n  "x": 2\n}', "b.txt": "p\nQ"}


def test_not_found_message_shows_the_closest_lines():
    text = patch(
        "*** Update File: shop.py",
        "@@ def total(cart):",
        "-    return sum(cart.items)",
        "+    return 0",
    )
    error = refused(text, {"shop.py": SHOP})
    assert error.line == 16
    assert error.message == (
        "Patch not applied (no file was changed): in shop.py, chunk 1 of 1 "
        "(under '@@ def total(cart):') was not found.\n"
        "The closest text in the file is at line 16:\n"
        "14|     if cart is None:\n"
        "15|         return 0\n"
        "16|     return sum(i.price for i in cart.items)\n"
        "Where old differs from those lines:\n"
        "  patch:    return sum(cart.items)\n"
        "  file:     return sum(i.price for i in cart.items)  (line 16)\n"
        "Copy the chunk's context (' ') and removed ('-') lines exactly from the file, then "
        "send the whole patch again."
    )
