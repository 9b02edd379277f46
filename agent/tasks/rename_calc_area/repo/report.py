"""A one-line summary of a drawing's shapes."""

from shapes import calc_area


def total_area(shapes):
    """The area all ``shapes`` cover, overlaps counted twice."""
    return sum(calc_area(shape) for shape in shapes)


def summary(shapes):
    """ "3 shapes, 12.57 square units; largest 9.00"."""
    if not shapes:
        return "no shapes"
    largest = max(calc_area(shape) for shape in shapes)
    return f"{len(shapes)} shapes, {total_area(shapes):.2f} square units; largest {largest:.2f}"
