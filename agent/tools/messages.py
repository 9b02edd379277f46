"""Every text the model reads from the tools, in one place.

What a tool returns to the model and how it refuses a call: results,
refusals, notes appended to an output. A tool's description and parameters
are its ``<name>.json``; the texts of the loop and of the overlay the tools
work on (a path outside the workspace, a missing file, a stale view) are
``agent.messages``; the edit engine's are ``editing.messages``. What the
user alone sees (a call's progress words and summary, the question before a
command runs) stays with the tool. Tests pin these texts; change them here
and in the tests together.
"""

from __future__ import annotations

# -- creating and deleting files (create_file.py, delete_file.py) ---------------------

FILE_EXISTS = (
    "{path} already exists. Change it with edit, multi_edit or apply_patch; view it first."
)
CREATED = "Created {path} ({lines} lines)."
DELETED = "Deleted {path}."

# -- staging a change (staging.py) ----------------------------------------------------

# The label of a change made without a description; the review note repeats it.
NO_DESCRIPTION = "(no description)"

# -- ending the task (finish.py) ------------------------------------------------------

FINISHED = "Task finished."

# -- reading a file (view_file.py) ----------------------------------------------------

EMPTY_FILE = "{path} is empty."
PAST_THE_END = "{path} has {total} lines; line {first} is past the end."
MORE_LINES = "[{count} more lines: view with start_line={next} to see them]"
LINE_CUT = " [line cut: {count} more characters]"

# -- listing files (list_files.py) ----------------------------------------------------

BAD_GLOB = "Invalid glob {glob!r}: {error}."
NOT_LISTABLE = (
    "{path} is not a regular file or folder (a FIFO, device or socket); it "
    "cannot be listed or searched."
)
# What a listing or search covers, named in its messages ("src (files matching '*.py')").
WHOLE_WORKSPACE = "the workspace"
SCOPE_WITH_GLOB = "{folder} (files matching {glob!r})"
NO_FILES = "No files in {where}."
MARK_NEW = " (new)"
MARK_MODIFIED = " (modified)"
MORE_FILES = "{count} more files not listed; narrow with path or glob."

# -- searching (grep.py) --------------------------------------------------------------

NO_MATCHES = "No matches for {pattern!r} in {where}."
BAD_PATTERN = "Invalid regular expression {pattern!r}: {error}."
ONLY_RIPGREP_ACCEPTS = (
    "ripgrep accepts {pattern!r}, but open and changed files are searched "
    "with Python's re, which does not: {error}. Write it in syntax both accept."
)
RIPGREP_BAD_PATTERN = "Invalid regular expression {pattern!r}: {errors}"
RIPGREP_FAILED = "ripgrep failed: {errors}"
RIPGREP_EXIT_CODE = "exit code {code}"
MORE_MATCHES = "{count} more matches not shown; narrow the pattern or path."

# -- running a command (run_command.py) -----------------------------------------------

NO_RUNNER = (
    "Commands cannot run here (there is no workspace copy to run them in); "
    "continue without running it."
)
DECLINED = (
    "The user declined to run `{command}`. Continue without it, or ask the "
    "user to run it and tell you the result."
)
READS_OUTSIDE = (
    "`{command}` would read {path!r}, outside the workspace. "
    "Commands may only read files in the workspace: give a path relative to its "
    "root."
)
# A command's output, between the command line and how it ended.
COMMAND_LINE = "$ {command}"
COMMAND_TIMED_OUT = "[stopped after {timeout:g} s: timeout]"
COMMAND_KILLED = "[killed by signal {signal}]"
COMMAND_EXITED = "[exit code {code}]"
