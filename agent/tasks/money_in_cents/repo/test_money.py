import unittest

from invoice import line, total
from money import parse_amount


class ParseAmountTest(unittest.TestCase):
    def test_amounts_are_whole_cents(self):
        self.assertEqual(parse_amount("12.50"), 1250)
        self.assertEqual(parse_amount(" $3 "), 300)
        self.assertEqual(parse_amount("0.5"), 50)
        self.assertEqual(parse_amount(".07"), 7)


class TotalTest(unittest.TestCase):
    def test_no_float_rounding(self):
        self.assertEqual(total(["0.10", "0.20"]), "0.30")
        self.assertEqual(total(["12.5", "0.5", "$7"]), "20.00")

    def test_empty_invoice(self):
        self.assertEqual(total([]), "0.00")

    def test_line(self):
        self.assertEqual(line("Coffee", "3.5"), "Coffee" + " " * 20 + "3.50")


if __name__ == "__main__":
    unittest.main()
