"""The loop: a task in, a proposal out.

``session.Session`` runs the model and the tools over the staged workspace
until the model finishes, then checks the project's tests on what it
proposes (``test_checks``); ``calls`` runs one turn's tool calls,
``comment_task`` reads a task from a ``surehand:`` comment.

The top of the core: it may import every other room of ``agent``; no other
room imports it.
"""
