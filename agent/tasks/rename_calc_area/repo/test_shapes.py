import math
import unittest

import report
import shapes


class AreaTest(unittest.TestCase):
    def test_area(self):
        self.assertAlmostEqual(shapes.area({"kind": "circle", "r": 2.0}), 4 * math.pi)
        self.assertEqual(shapes.area({"kind": "rect", "w": 2, "h": 3}), 6)

    def test_old_name_is_gone(self):
        self.assertFalse(hasattr(shapes, "calc_area"))

    def test_summary(self):
        drawing = [{"kind": "rect", "w": 3, "h": 3}, {"kind": "rect", "w": 1, "h": 2}]
        self.assertEqual(report.summary(drawing), "2 shapes, 11.00 square units; largest 9.00")
        self.assertEqual(report.summary([]), "no shapes")


if __name__ == "__main__":
    unittest.main()
