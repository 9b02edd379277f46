"""Plane shapes as dicts: {"kind": "circle", "r": 1.0}, {"kind": "rect", "w": 2, "h": 3}."""

import math


def calc_area(shape):
    """The area of ``shape``."""
    if shape["kind"] == "circle":
        return math.pi * shape["r"] ** 2
    if shape["kind"] == "rect":
        return shape["w"] * shape["h"]
    raise ValueError(f"unknown shape kind: {shape['kind']!r}")
