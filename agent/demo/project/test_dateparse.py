import datetime
import unittest

from dateparse import DateParseError, parse_date


class ParseDateTest(unittest.TestCase):
    def test_iso(self):
        self.assertEqual(parse_date("2024-03-12"), datetime.date(2024, 3, 12))

    def test_us(self):
        self.assertEqual(parse_date("03/12/2024"), datetime.date(2024, 3, 12))

    def test_european_day_comes_first(self):
        self.assertEqual(parse_date("12.03.2024"), datetime.date(2024, 3, 12))

    def test_garbage(self):
        with self.assertRaises(DateParseError):
            parse_date("soon")


if __name__ == "__main__":
    unittest.main()
