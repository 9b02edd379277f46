"""Indentation maps inferred from matched lines."""

from editing.indentation import IndentMap, infer


def inferred(pairs: list[tuple[str, str]]) -> IndentMap:
    found = infer(pairs)
    assert found is not None, pairs
    return found


def test_same_indentation_is_identity():
    assert inferred([("    ", "    "), ("", "")]).is_identity


def test_offset_deeper_and_shallower():
    deeper = inferred([("        ", "    "), ("            ", "        ")])
    assert deeper == IndentMap(remove="    ", add="")
    assert deeper.apply("                ") == "            "
    assert deeper.apply("  ") is None
    shallower = inferred([("", "    "), ("    ", "        ")])
    assert shallower.apply("  ") == "      "


def test_spaces_to_tabs_by_level():
    found = inferred([("    ", "\t"), ("        ", "\t\t")])
    assert found.apply("            ") == "\t\t\t"
    assert found.apply("      ") == "\t  "


def test_tabs_to_spaces():
    found = inferred([("\t", "  "), ("\t\t", "    ")])
    assert found.apply("\t\t\t") == "      "


def test_no_single_map_explains_the_pairs():
    assert infer([("    ", "    "), ("        ", "    ")]) is None
