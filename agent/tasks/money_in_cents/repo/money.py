"""Amounts of money as people type them: "12.50", "$3", "0.5"."""


def parse_amount(text):
    """The amount ``text`` stands for."""
    return float(text.strip().removeprefix("$"))
