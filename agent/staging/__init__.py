"""The staged workspace, and the review and landing of what it proposes.

``workspace.Overlay`` holds the model's changes over the disk (nothing is
written); ``proposal`` is what a task proposes, file by file, with its
hunks (``hunks``); ``review`` and ``walk`` are what the person decided;
``landing``, ``rebase`` and ``landed`` put the accepted part onto the files
as they are at the answer, around the person's own typing; ``history``
keeps what was written, for undo.

Imports ``agent.checks`` (a proposal carries its tests' verdict), the
shared words and ``editing``; nothing of the loop, the tools, the models or
command execution.
"""
