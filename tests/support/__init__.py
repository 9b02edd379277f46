"""Helpers shared by the tests: a scripted OpenAI-compatible server."""
