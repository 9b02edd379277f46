"""Invoice totals."""

from money import parse_amount


def total(amounts):
    """The sum of ``amounts`` (as typed), shown with two decimals: "12.50"."""
    return str(sum(parse_amount(amount) for amount in amounts))


def line(label, amount):
    """One invoice line: the label, then the amount right-aligned to column 30."""
    return f"{label:<20}{total([amount]):>10}"
