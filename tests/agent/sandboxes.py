"""The sandboxes commands are tested in: bubblewrap for real, and none at all.

CI installs bubblewrap, so there a missing or broken one fails the tests
instead of skipping them.
"""

import os

import pytest

from agent.execution.sandbox import Sandbox, Unsandboxed, choose

NONE = Unsandboxed("turned off for this test")
PYTHON = "python3"  # from PATH: the test runner's own venv is not visible in the sandbox


def bubblewrap() -> Sandbox:
    sandbox = choose("bubblewrap")
    if not sandbox.contained:
        if os.environ.get("CI"):
            pytest.fail(f"the sandbox must be tested in CI: {sandbox.why}")
        pytest.skip(sandbox.why)
    return sandbox


@pytest.fixture(params=["bubblewrap", "none"])
def sandbox(request: pytest.FixtureRequest) -> Sandbox:
    """Each sandbox in turn."""
    return bubblewrap() if request.param == "bubblewrap" else NONE
