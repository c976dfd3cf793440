"""Where the demo serves, as the links it mails and feeds name it."""

from __future__ import annotations

from app.core.config import Settings

# Addresses a server listens on that no browser can open: links name the machine itself.
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})  # noqa: S104 (names them, binds none)


def public_url(host: str, port: int) -> str:
    """The base URL a browser on this machine opens the demo served on ``host:port`` at."""
    shown = "127.0.0.1" if host in WILDCARD_HOSTS else host
    return f"http://[{shown}]:{port}" if ":" in shown else f"http://{shown}:{port}"


def served_at(settings: Settings, host: str, port: int) -> Settings:
    """``settings`` whose mailed and fed links lead to the demo served on ``host:port``."""
    return settings.model_copy(update={"public_base_url": public_url(host, port)})
