import unittest

from names import display_name, initials


class InitialsTest(unittest.TestCase):
    def test_initials(self):
        self.assertEqual(initials("ada lovelace"), "AL")
        self.assertEqual(initials("Grace Brewster Hopper"), "GBH")

    def test_extra_whitespace_is_ignored(self):
        self.assertEqual(initials("  Ada   Lovelace "), "AL")
        self.assertEqual(initials("Alan\tTuring"), "AT")

    def test_empty_name(self):
        self.assertEqual(initials(""), "")
        self.assertEqual(initials("   "), "")


class DisplayNameTest(unittest.TestCase):
    def test_display_name(self):
        self.assertEqual(display_name("  ada   lovelace"), "Ada Lovelace")


if __name__ == "__main__":
    unittest.main()
