"""What a web process must have before it serves: settings that pass, the model files it
loads, a database that lets it in. One check, run by uvicorn's factory in each worker and by
``paperboy web`` once in the parent, before any worker starts (a worker that refuses is
respawned by uvicorn's supervisor for ever, so only the parent can stop on bad settings)."""

from __future__ import annotations

from app.core.config import Settings
from app.core.settings_check import refuse_an_unusable_database, startup_settings
from app.services.artifacts import Artifact, refuse_broken_artifacts

PROGRAM = "paperboy web"


def web_settings(settings: Settings | None = None) -> Settings | None:
    """The settings the site may serve with, or None once it has printed why not."""
    checked = startup_settings(PROGRAM, settings)
    return None if checked is None or refuse_to_serve(checked) else checked


def refuse_to_serve(settings: Settings, program: str = PROGRAM) -> bool:
    """Print why the site (or ``program``, which serves what it serves) cannot serve with
    these (checked) settings; True if it cannot."""
    return refuse_broken_artifacts(
        program, settings, web_artifacts(settings)
    ) or refuse_an_unusable_database(program, settings)


def web_artifacts(settings: Settings) -> list[Artifact]:
    """The model files the site loads: the taste space (For you), the embedding model (search)."""
    semantic = [Artifact.EMBEDDING_MODEL] if settings.search_semantic else []
    return [Artifact.TASTE_SPACE, *semantic]
