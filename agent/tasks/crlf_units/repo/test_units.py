import unittest
from pathlib import Path

from units import cups_to_millilitres, ounces_to_grams, pounds_to_grams


class ConversionTest(unittest.TestCase):
    def test_ounces(self):
        self.assertAlmostEqual(ounces_to_grams(2), 56.7)

    def test_pounds(self):
        self.assertAlmostEqual(pounds_to_grams(1), 453.6, places=1)
        self.assertAlmostEqual(pounds_to_grams(2.5), 1134.0, places=0)

    def test_cups(self):
        self.assertAlmostEqual(cups_to_millilitres(0.5), 120.0)


class LineEndingTest(unittest.TestCase):
    def test_units_keeps_its_crlf_line_endings(self):
        data = Path(__file__).with_name("units.py").read_bytes()
        self.assertEqual(data.count(b"\n"), data.count(b"\r\n"))


if __name__ == "__main__":
    unittest.main()
