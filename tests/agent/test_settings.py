"""Settings: parsed in one place, never fatal."""

from agent.config.settings import DEFAULT_ALLOWLIST, Settings


def test_defaults_and_environment():
    settings, problems = Settings.parse(
        None, env={"SUREHAND_MODEL": "qwen", "OPENAI_BASE_URL": "http://localhost:8000/v1"}
    )
    assert problems == []
    assert settings.model == "qwen"
    assert settings.base_url == "http://localhost:8000/v1"
    assert settings.command_allowlist == DEFAULT_ALLOWLIST
    assert settings.max_steps == 40


def test_camel_case_editor_settings_override_the_environment():
    settings, problems = Settings.parse(
        {
            "model": "gpt",
            "baseUrl": "https://api.example/v1",
            "maxSteps": 12,
            "commandAllowlist": ["pytest", " make check "],
            "requestTimeout": 30,
        },
        env={"SUREHAND_MODEL": "qwen"},
    )
    assert problems == []
    assert (settings.model, settings.base_url, settings.max_steps) == (
        "gpt",
        "https://api.example/v1",
        12,
    )
    assert settings.command_allowlist == ("pytest", "make check")
    assert settings.request_timeout == 30.0


def test_bad_values_become_defaults_with_a_problem_each():
    settings, problems = Settings.parse(
        {
            "maxSteps": "many",
            "requestTimeout": -1,
            "commandAllowlist": "pytest",
            "colour": "red",
            "max_retries": True,
        },
        env={},
    )
    assert settings.max_steps == Settings().max_steps
    assert settings.request_timeout == Settings().request_timeout
    assert settings.command_allowlist == DEFAULT_ALLOWLIST
    assert settings.max_retries == Settings().max_retries
    assert len(problems) == 5
    assert "unknown setting 'colour' ignored" in problems


def test_key_comes_from_the_named_variable_and_never_shows_in_repr():
    settings, _ = Settings.parse({"apiKeyEnv": "MY_LLM_KEY"}, env={})
    assert settings.key({"MY_LLM_KEY": "sk-secret"}) == "sk-secret"
    direct, _ = Settings.parse({"apiKey": "sk-direct"}, env={})
    assert direct.key({}) == "sk-direct"
    assert "sk-direct" not in repr(direct)
