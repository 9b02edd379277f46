import unittest

import app


class SignUpTest(unittest.TestCase):
    def test_good_form(self):
        self.assertEqual(app.sign_up({"username": "ada_l", "email": "ada@example.org"}), {})

    def test_bad_form(self):
        problems = app.sign_up({"username": "x", "email": "nope"})
        self.assertEqual(set(problems), {"username", "email"})


class ValidatorsModuleTest(unittest.TestCase):
    def test_validators_live_in_their_own_module(self):
        import validators

        self.assertIs(app.valid_email, validators.valid_email)
        self.assertIs(app.valid_username, validators.valid_username)
        self.assertFalse(hasattr(app, "EMAIL"))
        self.assertFalse(hasattr(app, "re"))

    def test_validators(self):
        import validators

        self.assertTrue(validators.valid_email("a.b@example.co"))
        self.assertFalse(validators.valid_email("a@b"))
        self.assertTrue(validators.valid_username("abc_123"))
        self.assertFalse(validators.valid_username("ab"))


if __name__ == "__main__":
    unittest.main()
