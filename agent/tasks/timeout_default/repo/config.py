"""The client's settings, read from a mapping such as ``os.environ``."""

from dataclasses import dataclass

DEFAULT_TIMEOUT = 30.0
DEFAULT_RETRIES = 3


@dataclass(frozen=True)
class ClientConfig:
    base_url: str
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    verify_tls: bool = True


def from_env(env):
    """The settings in ``env``; see the README for the variables and their defaults."""
    return ClientConfig(
        base_url=env["API_URL"].rstrip("/"),
        timeout=float(env.get("API_TIMEOUT", 3)),
        retries=int(env.get("API_RETRIES", DEFAULT_RETRIES)),
        verify_tls=env.get("API_VERIFY_TLS", "1") != "0",
    )
