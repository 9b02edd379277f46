"""Helpers shared by the tests: a scripted OpenAI-compatible server and the task it scripts."""
