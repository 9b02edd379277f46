"""Unit conversions for the recipe scaler (a Windows project: CRLF line endings)."""

GRAMS_PER_OUNCE = 28.35
GRAMS_PER_POUND = 435.6
MILLILITRES_PER_CUP = 240.0


def ounces_to_grams(ounces):
    return ounces * GRAMS_PER_OUNCE


def pounds_to_grams(pounds):
    return pounds * GRAMS_PER_POUND


def cups_to_millilitres(cups):
    return cups * MILLILITRES_PER_CUP
