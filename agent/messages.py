"""Every text the model reads from the loop, in one place.

What the session, the call runner, the overlay, the views, the command
runner and the review tell the model: nudges, refusals of a call, notes
with the next task. The system prompt is ``prompt.txt``; each tool's
description is its ``tools/<name>.json``; what the tools themselves return
(results, refusals, notes on an output) is ``agent.tools.messages``; the
engine's own refusals are ``editing.messages``. Tests pin these texts (and a
snapshot pins the first request); change them here and in the tests together.
"""

from __future__ import annotations

# -- the session (agent/loop/session.py) ---------------------------------------------------

CANCELLED_CALL = "Not done: the user cancelled the task."
CUT_OFF_ANSWER = "The answer was cut off at the endpoint's token limit (max tokens):"
PATCH_IN_ANSWER = (
    "Your answer holds a patch, but text in an answer changes nothing. Send the patch "
    "as the `patch` argument of the apply_patch tool, then call finish."
)

# -- running a call (agent/loop/calls.py) --------------------------------------------------

REPEAT_HINT = (
    "\n\nYou made this exact call before and it failed the same way. Change approach: view "
    "the file again and copy the text from it, quote more or less of it, or use another tool."
)
CUT_OFF_CALL = (
    "Your answer was cut off at the endpoint's token limit (max tokens) while you were "
    "writing this call to {name}: its arguments ({size} characters) end unfinished, so "
    "nothing was done. Send less in one call: make the change in smaller edits, or create "
    "a large file in parts."
)
# -- a model answer stopped at the answer ceiling (agent/conversation.py, calls.py) --
ANSWER_STOPPED_CALL = (
    "Your answer was stopped at {limit:,} characters (the most surehand reads of one "
    "answer) while you were writing this call to {name}: its arguments are unfinished, "
    "so nothing was done. Send less in one call: make the change in smaller edits, or "
    "create a large file in parts."
)
ANSWER_STOPPED_AFTER = (
    "\n\n[Your answer was stopped at {limit:,} characters (the most surehand reads of "
    "one answer): what you wrote after this call was not read. Send less in one answer.]"
)
ANSWER_STOPPED_TEXT = (
    "[surehand stopped this answer at {limit:,} characters, the most it reads of one answer]"
)
NO_SUCH_TOOL = "There is no tool {name!r}. The tools are: {names}."
TOOL_TIMED_OUT = (
    "{name} did not finish within {limit:g} s and was stopped; nothing was "
    "changed. Make the request narrower (a smaller range, a more specific path)."
)
TOOL_FAILED = "{name} failed with an internal error; the change was not made. Try another way."
NOT_AN_OBJECT = (
    "The arguments of {name} are not a JSON object ({why}). "
    "Send one JSON object with the parameters of the schema."
)
INVALID_ARGUMENTS = "Invalid arguments for {name}: {details}. Fix them and call {name} again."

# -- the conversation (agent/conversation.py) -----------------------------------------

COMPACTED = (
    "[output of {tool} compacted to save context ({size} characters); run it again if "
    "you need it. It began: {first_line}]"
)
# Stands in for the oldest whole tasks once stubbing outputs is not enough.
TASKS_DROPPED = (
    "[Earlier tasks of this conversation were removed to save context ({count} in all); "
    "read the files again for where they stand now. Oldest first, the tasks began:\n"
    "{lines}]"
)
TASKS_DROPPED_LINE = "- {line}"
TASKS_DROPPED_UNLISTED = "- ({count} earlier tasks, not listed)"
TASKS_DROPPED_NO_TEXT = "(a task without text)"

# -- paths and files of the overlay (agent/staging/workspace.py) ------------------------------

OUTSIDE_WORKSPACE = "{path} is outside the workspace {root}."
PATH_REFUSED = "{path} {why}; paths are relative to the workspace."
READ_ONLY = "{path} cannot be changed: .git and the workspace root are read-only."
IS_A_DIRECTORY = "{path} is a directory; list it with list_files."
NOT_TEXT = "{path} {why}; it cannot be read or edited."
NO_SUCH_FILE = "{path} does not exist. Find files with list_files or grep."

# -- what the model saw (agent/staging/views.py) ----------------------------------------------

STALE_VIEW = (
    "Edit not applied: {path} changed since you last saw it (the user or another "
    "edit changed it), and your edit touches the changed part. Lines "
    "{first}-{last} now read:\n{numbered}\nMake the edit against this text."
)
RETRY_BUDGET_SPENT = (
    "{message}\n\nThat is {failures} failed edits of {path} in a row. "
    "Work from its current text, lines {first}-{last}:\n{numbered}"
)

# -- command lines (agent/config/command_line.py, agent/execution/runner.py) -----------------

COMMAND_UNPARSABLE = (
    "The command cannot be parsed ({error}): close every quote, "
    "or escape a lone quote with a backslash."
)
COMMAND_EMPTY = "The command is empty: give a command line such as `pytest -x`."
COMMAND_SHELL_OPERATOR = (
    "Commands run without a shell, so {operator!r} does not work. Run one "
    "command at a time, without pipes or redirections; output and errors are "
    "both returned."
)
COMMAND_CD = (
    "Commands always run at the workspace root, so cd does not work: give paths "
    "relative to the root instead."
)
COMMAND_ASSIGNMENT = (
    "Commands run without a shell, so a leading VAR=value does not set the "
    "environment: run the command alone."
)
COPY_FAILED = (
    "The workspace copy for commands could not be updated ({error}); "
    "continue without running commands."
)

# -- what became of the last proposal (agent/staging/review.py) -------------------------------

REVIEW_DISCARDED = "The user discarded your proposal."
REVIEW_HEAD = "About your last proposal (what the user accepted and what landed):"
REVIEW_FILE = "- {path}: {sentence}"
REVIEW_TAIL = "Read files again before editing."
REVIEW_CONFLICT = "clashed with the user's own change and was left out"
REVIEW_REBASED = "rebased onto the user's changes"
# The words of a file's sentence that the user's summary uses too.
REVIEW_HUNK = "{label} (line {line})"
REVIEW_OPERATIONS = {"create": "created", "delete": "deleted", "rename": "moved from {source}"}
REVIEW_NOT_DONE = "not {verb}"
REVIEW_ON_SAVE = " (accepted; it happens on disk when the user saves)"
REVIEW_LEFT_ALONE = "left alone because {why}"
REVIEW_CHANGED = "changed by the user meanwhile; the result is theirs"
REVIEW_ACCEPTED = "accepted"
REVIEW_REJECTED = "rejected"
