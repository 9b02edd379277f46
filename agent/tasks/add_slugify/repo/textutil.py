"""Small helpers for text shown in the blog's pages."""


def truncate(text, width):
    """``text`` cut to at most ``width`` characters, ending in "..." when cut."""
    if len(text) <= width:
        return text
    return text[: max(0, width - 3)].rstrip() + "..."


def word_count(text):
    """How many words ``text`` has."""
    return len(text.split())
