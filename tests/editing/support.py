"""What the editing tests share: the edit corpus and catching a refusal."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from editing.errors import EditError

CORPUS = Path(__file__).parent.parent / "edit-corpus" / "cases"


def refusal(call: Callable[..., Any], *args: Any, **kwargs: Any) -> EditError:
    """The ``EditError`` that ``call(*args, **kwargs)`` raises; the test fails if none is."""
    with pytest.raises(EditError) as caught:
        call(*args, **kwargs)
    return caught.value
