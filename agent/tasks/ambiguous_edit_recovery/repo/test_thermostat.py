import unittest

from thermostat import cooling_target, heating_target


class HeatingTest(unittest.TestCase):
    def test_heating(self):
        self.assertEqual(heating_target(15.0), 18.0)
        self.assertEqual(heating_target(20.0), 20.0)
        self.assertEqual(heating_target(None), 18.0)


class CoolingTest(unittest.TestCase):
    def test_cooling(self):
        self.assertEqual(cooling_target(30.0), 28.0)
        self.assertEqual(cooling_target(25.0), 25.0)

    def test_no_reading_saves_energy(self):
        self.assertEqual(cooling_target(None), 28.0)


if __name__ == "__main__":
    unittest.main()
