"""The engine at the edge of a directory on disk: the only part of ``editing`` that does I/O.

The rest of ``editing`` is pure (text in, text or a refusal out; a test
checks that it imports no file-system or process module). Here sit what
the command line and the agent need around it: the one rule for which
relative paths may be used (``paths``), reading and atomically writing the
files of a directory (``workdir``), the edit-corpus runner (``corpus``,
``eval``) and the engine's commands (``cli``: ``surehand eval`` and
``surehand apply-patch``).
"""
