"""The task repositories hold their own unittest suites, failing until a task is done.

They are run by ``surehand eval-tasks`` on temporary copies, never collected here.
"""

collect_ignore_glob = ["*"]
