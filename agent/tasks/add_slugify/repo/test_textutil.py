import unittest

from textutil import truncate, word_count


class TruncateTest(unittest.TestCase):
    def test_short_text_is_unchanged(self):
        self.assertEqual(truncate("hello", 10), "hello")

    def test_long_text_is_cut(self):
        self.assertEqual(truncate("hello wonderful world", 12), "hello won...")


class WordCountTest(unittest.TestCase):
    def test_word_count(self):
        self.assertEqual(word_count("  one two\tthree\n"), 3)


if __name__ == "__main__":
    unittest.main()
