import unittest

from config import ClientConfig, from_env


class FromEnvTest(unittest.TestCase):
    def test_defaults_match_the_readme(self):
        config = from_env({"API_URL": "https://api.example.org/"})
        self.assertEqual(config, ClientConfig("https://api.example.org", 30.0, 3, True))

    def test_values_from_the_environment(self):
        env = {
            "API_URL": "http://localhost:8080",
            "API_TIMEOUT": "2.5",
            "API_RETRIES": "0",
            "API_VERIFY_TLS": "0",
        }
        self.assertEqual(from_env(env), ClientConfig("http://localhost:8080", 2.5, 0, False))


if __name__ == "__main__":
    unittest.main()
