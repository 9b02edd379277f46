"""Sign-up form handling."""

import re

EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.IGNORECASE)


def valid_email(text):
    """Whether ``text`` looks like an e-mail address."""
    return bool(EMAIL.match(text))


def valid_username(text):
    """Whether ``text`` is 3 to 20 letters, digits or underscores."""
    return 3 <= len(text) <= 20 and text.replace("_", "").isalnum()


def sign_up(form):
    """The problems with a sign-up form, by field; empty when it can be accepted."""
    problems = {}
    if not valid_username(form.get("username", "")):
        problems["username"] = "3 to 20 letters, digits or underscores"
    if not valid_email(form.get("email", "")):
        problems["email"] = "not an e-mail address"
    return problems
