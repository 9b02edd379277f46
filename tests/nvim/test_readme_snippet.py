"""The Neovim page's snippet is the one the Neovim tests run (``surehand.lua``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_neovim_page_shows_the_tested_snippet():
    page = (ROOT / "docs" / "editors" / "neovim.md").read_text(encoding="utf-8")
    section = page[page.index("## Without the plugin: the built-in client") :]
    blocks = re.findall(r"```lua\n(.*?)```", section, re.S)
    (snippet,) = [b for b in blocks if b.startswith("-- surehand for Neovim 0.11+")]
    assert snippet == (Path(__file__).parent / "surehand.lua").read_text(encoding="utf-8")
