import unittest

from orders import order_total, subtotal


class OrderTotalTest(unittest.TestCase):
    def test_small_order_pays_shipping(self):
        self.assertEqual(order_total([("mug", 2)]), 2400 + 495)

    def test_orders_from_fifty_ship_free(self):
        self.assertEqual(order_total([("kettle", 1)]), 6500)
        self.assertEqual(order_total([("mug", 1), ("teapot", 1)]), 5100)

    def test_just_under_fifty_pays_shipping(self):
        lines = [("tea-sampler", 2)]
        self.assertEqual(subtotal(lines), 4800)
        self.assertEqual(order_total(lines), 4800 + 495)


if __name__ == "__main__":
    unittest.main()
