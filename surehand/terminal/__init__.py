"""The terminal front end: ``surehand run``, ``status``, ``config``, ``undo``, ``demo``.

``commands`` adds the terminal's commands to the command line; ``screen``
prints what happens as it happens; ``review`` asks about each hunk,
``accept`` lands and writes what was accepted. It stands on the core
(``agent``) as the language server and the Agent Client Protocol agent do,
and imports neither of them.
"""
