"""Read the dates people type: 2024-03-12, 03/12/2024 (US) and 12.03.2024 (European)."""

import datetime
import re

_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_US = re.compile(r"^(\d{2})/(\d{2})/(\d{4})$")
_EU = re.compile(r"^(\d{2})\.(\d{2})\.(\d{4})$")


class DateParseError(ValueError):
    """Raised when a string is not a date this module reads."""


def parse_date(text):
    """The ``datetime.date`` that ``text`` stands for."""
    text = text.strip()
    match = _ISO.match(text)
    if match:
        year, month, day = (int(part) for part in match.groups())
        return datetime.date(year, month, day)
    match = _US.match(text)
    if match:
        month, day, year = (int(part) for part in match.groups())
        return datetime.date(year, month, day)
    match = _EU.match(text)
    if match:
        month, day, year = (int(part) for part in match.groups())
        return datetime.date(year, month, day)
    raise DateParseError(f"not a date: {text!r}")
