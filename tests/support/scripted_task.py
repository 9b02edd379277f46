"""The small task most end-to-end tests give a scripted model: fix ``add`` in calc.py.

``CALC`` is the project's file, ``FIX`` the model's edit of it (``FIXED`` the
result) and ``FINISH`` its last call; ``edit`` builds other edit calls, and
``task_sent`` reads back what the model was asked.
"""

from __future__ import annotations

from tests.support.openai_server import Call, ScriptedServer

CALC = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
FIXED = CALC.replace("return a - b", "return a + b", 1)


def edit(old: str, new: str, description: str, path: str = "calc.py") -> Call:
    """An ``edit`` call replacing ``old`` by ``new`` in ``path``."""
    return Call(
        "edit",
        {"path": path, "old": old, "new": new, "replace_all": None, "description": description},
    )


FIX = edit("def add(a, b):\n    return a - b\n", "def add(a, b):\n    return a + b\n", "add adds")
FINISH = Call("finish", {"summary": "add now adds."})


def task_sent(model: ScriptedServer, request: int = -1) -> str:
    """The last message of a completion request: the task, after any notes for the model."""
    return model.completions[request].body["messages"][-1]["content"]


# -- files the model creates, deletes or moves (old.py and a.py are in the project) ------------

OLD = "OLD = 1\n"
A = "def f():\n    return 1\n"
UTIL = "def double(x):\n    return 2 * x\n"
CREATE = Call("create_file", {"path": "util.py", "content": UTIL, "description": "new util"})
DELETE = Call("delete_file", {"path": "old.py", "description": "old goes"})
MOVE = Call(
    "apply_patch",
    {
        "patch": (
            "*** Begin Patch\n*** Update File: a.py\n*** Move to: pkg/b.py\n@@ def f():\n"
            "-    return 1\n+    return 2\n*** End Patch"
        ),
        "description": "move f",
    },
)
MOVED = "def f():\n    return 2\n"
"""``MOVE``'s file as it is at its new path, ``pkg/b.py``."""
SUB_NOTE = edit(
    "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return a - b  # sub\n", "sub noted"
)
"""A second hunk of calc.py, beside ``FIX``."""
SUB_DONE = "def sub(a, b):\n    return a - b  # sub\n"
"""``sub`` once ``SUB_NOTE`` is accepted."""
HELPER = edit("X = 1\n", "X = 2\n", "two", path="helper.py")
"""An edit of helper.py (``X = 1``), a file the editor has not opened."""
VERSION = Call("run_command", {"command": "python3 --version", "timeout": None})
COMMENT = "# surehand: make add handle None\n"
"""A task written in calc.py as a comment."""
NONE_FIX = edit(
    "def add(a, b):\n    return a + b\n",
    "def add(a, b):\n    if a is None or b is None:\n        return None\n    return a + b\n",
    "add handles None",
)
"""The model's edit for ``COMMENT``, on ``FIXED``."""
