"""A test run's verdict: what a runner's output says, and the words for it.

``suite_results`` reads the summary lines of pytest, unittest, node's test
runner, Jest, Vitest, Mocha, cargo and go; ``verdicts`` is the verdict a
proposal carries for each of the project's test commands. The runs
themselves are made by ``agent.loop.test_checks``.

Imports nothing of ``agent`` but ``editing``'s helpers: the bottom of the core.
"""
