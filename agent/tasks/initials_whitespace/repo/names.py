"""People's names as they are typed into forms."""


def initials(full_name):
    """The initials of a name, upper case: "ada lovelace" -> "AL"."""
    return "".join(part[0] for part in full_name.split(" ")).upper()


def display_name(full_name):
    """The name with each part capitalised: "ada lovelace" -> "Ada Lovelace"."""
    return " ".join(part.capitalize() for part in full_name.split())
