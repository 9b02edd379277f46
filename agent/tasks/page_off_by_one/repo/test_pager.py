import unittest

from pager import page_count, page_of, page_range


class PagerTest(unittest.TestCase):
    def test_page_count(self):
        self.assertEqual(page_count(25, 10), 3)
        self.assertEqual(page_count(20, 10), 2)
        self.assertEqual(page_count(0, 10), 1)

    def test_page_range_includes_the_last_page(self):
        self.assertEqual(list(page_range(25, 10)), [1, 2, 3])
        self.assertEqual(list(page_range(0, 10)), [1])

    def test_page_of(self):
        self.assertEqual(page_of(0, 10), 1)
        self.assertEqual(page_of(10, 10), 2)


if __name__ == "__main__":
    unittest.main()
