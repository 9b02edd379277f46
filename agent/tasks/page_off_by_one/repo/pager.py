"""Page numbers for a long list shown a page at a time."""


def page_count(total, per_page):
    """Pages needed to show ``total`` items, ``per_page`` to a page (at least one)."""
    return max(1, -(-total // per_page))


def page_range(total, per_page):
    """The page numbers to link to, from the first page to the last."""
    return range(1, page_count(total, per_page))


def page_of(index, per_page):
    """The page (1-based) that shows item ``index`` (0-based)."""
    return index // per_page + 1
